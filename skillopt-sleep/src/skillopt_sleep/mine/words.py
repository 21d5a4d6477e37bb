"""The words a developer's replies are read by, in English, German, French and Spanish.

Reading a reply is structural (:mod:`.corrections`, :mod:`.feedback`): which named
things it prefers or avoids, whether it asks for new work, whether it adjusts the work
just done. The structure is carried by a few closed word classes — negators, "instead
of", "always", request openers, politeness — listed here per language, so a fifth
language is a data change. Every list is matched on word boundaries, case-insensitively.
"""

from __future__ import annotations

import re

#: words that make the named thing after them (in the same clause) something to avoid
NEGATORS = (
    # en
    "not", "never", "don't", "do not", "doesn't", "no", "stop", "stop using", "without", "instead of", "rather than",
    "avoid", "nor", "no more", "not ever",
    # de
    "nicht", "nie", "niemals", "kein", "keine", "keinen", "statt", "anstatt", "anstelle von", "ohne", "vermeide",
    # fr
    "pas", "jamais", "au lieu de", "plutôt que", "sans", "évite", "n'utilise pas", "ni",
    # es
    "no", "nunca", "en vez de", "en lugar de", "sin", "evita", "ni",
)  # fmt: skip

#: words after a named thing, in its clause, that reject it ("`ruff` is wrong here", "`X` ist hier falsch")
REJECTED_AFTER = (
    "wrong", "incorrect", "deprecated", "obsolete", "outdated", "broken", "the old way", "old one", "doesn't work",
    "does not work", "not what we use",
    "falsch", "veraltet", "kaputt", "geht nicht", "funktioniert nicht",
    "faux", "obsolète", "cassé", "ne marche pas", "l'ancienne",
    "está mal", "incorrecto", "obsoleto", "roto", "no funciona",
)  # fmt: skip

#: "prefer X over Y", "plutôt X que Y", "mejor X que Y": the thing after these is avoided
OVER = ("over", "rather than", "than", "que", "als", "statt", "anstatt")

#: words that say a convention holds every time
ALWAYS = ("always", "every time", "from now on", "immer", "stets", "toujours", "siempre", "todas las veces")

#: verbs that tell the agent what to use or run (imperative), per language
USE_VERBS = (
    "use", "run", "call", "prefer", "switch to", "go with", "stick to", "stick with",
    "nimm", "nehmen", "verwende", "verwenden", "benutze", "benutzen", "nutze", "nutzen", "ruf", "lass",
    "utilise", "utiliser", "prends", "lance", "passe à", "privilégie",
    "usa", "usar", "utiliza", "ejecuta", "cambia a", "prefiere",
)  # fmt: skip

#: a reply opening that rejects what was just done
OPENING_NO = ("no", "nope", "nah", "wrong", "nein", "nee", "falsch", "non", "faux", "incorrecto", "mal")

#: "it goes / belongs / lives in X": a reply placing the work somewhere else
PLACE = (
    "put it", "put them", "put that", "move it", "move them", "belongs", "belong", "goes", "go in", "goes in", "goes under",
    "live in", "lives in", "should be in", "should go", "place it", "wrong place", "wrong spot", "wrong file", "wrong folder",
    "gehört", "gehören", "leg", "ablegen", "verschieb", "kommt in", "kommt unter", "falsche stelle", "falschen ort",
    "mets", "mettre", "va dans", "va sous", "vont dans", "déplace", "mauvais endroit", "mauvais fichier",
    "ponlo", "ponla", "pon", "va en", "va bajo", "van en", "mueve", "sitio equivocado", "lugar equivocado",
)  # fmt: skip

#: openers of a correction that comes after the work was said to be done
LATE = (
    "actually", "wait", "hmm", "oops", "sorry", "one thing", "but", "however", "i meant", "that's not what i meant",
    "eigentlich", "moment", "warte", "aber", "ich meinte", "en fait", "attends", "mais", "je voulais dire",
    "en realidad", "espera", "pero", "quería decir",
)  # fmt: skip

#: "I meant …": the work was not what was asked, anywhere in a reply
MEANT = ("i meant", "what i meant", "i said", "ich meinte", "ich hatte gesagt", "je voulais dire", "j'avais dit",
         "quería decir", "había dicho", "dije")  # fmt: skip

#: a second request in the same session ("now tag it", "jetzt …", "ensuite …", "ahora …")
NEXT = (
    "now", "next", "then", "ok, and", "ok and", "one more", "and now", "after that", "also", "another thing",
    "jetzt", "als nächstes", "danach", "dann", "noch", "außerdem",
    "maintenant", "ensuite", "après", "aussi", "encore",
    "ahora", "luego", "después", "también", "además",
)  # fmt: skip

#: a polite request form: asking for (more) work, whatever else the reply says
REQUEST = (
    "could you", "can you", "would you", "would you mind", "will you", "please", "i'd like", "i need", "we need",
    "kannst du", "könntest du", "würdest du", "bitte", "kannst du bitte", "magst du",
    "tu peux", "tu pourrais", "pourrais-tu", "peux-tu", "s'il te plaît", "merci de",
    "puedes", "podrías", "por favor", "me gustaría",
)  # fmt: skip

#: praise and thanks, per language (the English list lives in :mod:`.feedback`)
PRAISE = ("danke", "super", "sehr gut", "passt", "perfekt", "merci", "parfait", "top", "nickel", "génial",
          "gracias", "perfecto", "genial", "vale")  # fmt: skip


def phrase_pattern(phrases) -> re.Pattern[str]:
    """One case-insensitive pattern matching any of ``phrases`` on word boundaries (longest first)."""
    ordered = sorted(set(phrases), key=len, reverse=True)
    body = "|".join(re.escape(p).replace(r"\ ", r"\s+") for p in ordered)
    return re.compile(r"(?<![\w'])(?:" + body + r")(?![\w'])", re.IGNORECASE)


NEGATOR = phrase_pattern(NEGATORS)
REJECTED = phrase_pattern(REJECTED_AFTER)
OVER_WORD = phrase_pattern(OVER)
ALWAYS_WORD = phrase_pattern(ALWAYS)
USE_VERB = phrase_pattern(USE_VERBS)
OPENING_NO_WORD = re.compile(r"^\s*(?:" + "|".join(OPENING_NO) + r")\b[\s,.!:;-]", re.IGNORECASE)
PLACE_WORD = phrase_pattern(PLACE)
LATE_OPENER = re.compile(r"^\W*(?:" + "|".join(re.escape(w) for w in LATE) + r")\b", re.IGNORECASE)
LATE_WORD = phrase_pattern(LATE)
MEANT_WORD = phrase_pattern(MEANT)
NEXT_OPENER = re.compile(r"^\W*(?:" + "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in NEXT) + r")\b[\s,:;-]*", re.IGNORECASE)
REQUEST_WORD = phrase_pattern(REQUEST)
PRAISE_WORD = phrase_pattern(PRAISE)
