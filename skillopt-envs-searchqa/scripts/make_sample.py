"""Generate the bundled SearchQA sample split from the fact tables in ``sample_facts.py``.

Deterministic: the same seed writes byte-identical files, so the shipped data can be
checked against this script (``tests/test_sample_data.py`` does). Run from anywhere:

    python scripts/make_sample.py            # rewrite the package's data/sample/
    python scripts/make_sample.py --out DIR  # write somewhere else
    python -m skillopt_envs_searchqa.generator DIR   # the same, by the env's generator convention

Each item follows the SearchQA item schema ``{id, question, context, answers}`` plus
``task_type`` (the challenge kind) and ``reference`` (what the optimizer may see, never
the target). Challenge kinds:

* ``verbatim``: the answer appears in a snippet exactly as the gold spells it;
* ``distractor``: it does too, but decoy snippets share most of the clue's details, so
  the right snippet must be chosen by matching every detail;
* ``noncanonical``: the snippets spell the answer only in a form that exact match
  rejects (``Dr. Ada Quillane``, ``Quillane, Ada``, ``Mt. Ossary``, ``St. Aubel``), so the
  answer must be normalised (drop the title, reorder the name, expand the abbreviation).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import sample_facts as F  # noqa: E402

SEED = 20240611
GENERATOR_VERSION = 1
SPLIT_SIZES = {"train": 60, "val": 40, "test": 100}
DEFAULT_OUT = HERE.parent / "src" / "skillopt_envs_searchqa" / "data" / "sample"
KINDS = ("verbatim", "distractor", "noncanonical")


class World:
    """Draws unique invented entities so no two items share an answer."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.people = [(g, s) for g in F.GIVEN_NAMES for s in F.SURNAMES]
        rng.shuffle(self.people)
        self.towns = [h + t for h in F.TOWN_HEADS for t in F.TOWN_TAILS]
        rng.shuffle(self.towns)
        self.prefixed = list(F.PREFIXED_TOWNS)
        rng.shuffle(self.prefixed)
        self.mountains = list(F.MOUNTAINS)
        rng.shuffle(self.mountains)
        self.books = list(F.BOOKS)
        rng.shuffle(self.books)
        self.dishes = list(F.DISHES)
        rng.shuffle(self.dishes)
        self.used_surnames: set[str] = set()

    def person(self, avoid: str = "") -> tuple[str, str]:
        """A fresh person; ``avoid`` is a surname that must not come back (the answer's)."""
        skipped = []
        while True:
            given, surname = self.people.pop()
            if surname == avoid:
                skipped.append((given, surname))
                continue
            if surname not in self.used_surnames or len(self.used_surnames) >= len(F.SURNAMES):
                self.used_surnames.add(surname)
                self.people.extend(skipped)
                return given, surname

    def town(self) -> str:
        return self.towns.pop()

    def year(self, lo: int = 1760, hi: int = 1910) -> int:
        return self.rng.randint(lo, hi)

    def pick(self, seq):
        return self.rng.choice(seq)


def doc(title: str, text: str) -> tuple[str, str]:
    return (title, text)


def noise_doc(w: World) -> tuple[str, str]:
    town = w.pick(F.TOWN_HEADS) + w.pick(F.TOWN_TAILS)
    return doc(f"{town} - {w.pick(F.SITES)}", w.pick(F.NOISE))


def person_forms(given: str, surname: str, kind: str, w: World) -> tuple[str, str]:
    """(surface form in the snippets, form label) of a person answer."""
    if kind != "noncanonical":
        return f"{given} {surname}", "canonical"
    if w.rng.random() < 0.5:
        return f"{w.pick(F.TITLES)} {given} {surname}", "title"
    return f"{surname}, {given}", "surname-first"


# --------------------------------------------------------------------------- frames
# Each frame returns (question, support docs, decoy docs, answers, surface, answer_type).


def frame_builder(w: World, kind: str):
    given, surname = w.person()
    job, structure, town, year = w.pick(F.ENGINEER_JOBS), w.pick(F.STRUCTURES), w.town(), w.year()
    surface, form = person_forms(given, surname, kind, w)
    question = w.pick((
        f"In {year} this {job} completed the {structure} at {town}",
        f"The {structure} at {town}, finished in {year}, was the work of this {job}",
    ))
    if form == "surname-first":
        support = [doc(f"Register of {job}s - {w.pick(F.SITES)}",
                       f"{surname}, {given} ({job}, born {year - w.rng.randint(25, 45)}). Principal work: the {structure} at {town}, {year}.")]
    else:
        support = [doc(f"{town} {structure} - {w.pick(F.SITES)}",
                       f"The {structure} at {town} was completed in {year} by the {job} {surface}. {w.pick(F.NOISE)}")]
    decoys = []
    n_decoys = 2 if kind == "distractor" else 1
    for i in range(n_decoys):
        dg, ds = w.person(avoid=surname)
        if kind == "distractor" and i == 0:
            dt, dst, dy = w.town(), structure, year  # same structure and year, another town
        elif kind == "distractor":
            dt, dst, dy = town, w.pick([s for s in F.STRUCTURES if s != structure]), year + w.rng.randint(3, 30)
        else:
            dt, dst, dy = w.town(), w.pick([s for s in F.STRUCTURES if s != structure]), w.year()
        decoys.append(doc(f"{dt} {dst} - {w.pick(F.SITES)}", f"The {dst} at {dt} was completed in {dy} by the {w.pick(F.ENGINEER_JOBS)} {dg} {ds}."))
    return question, support, decoys, [f"{given} {surname}", surname], surface, "person"


def frame_author(w: World, kind: str):
    given, surname = w.person()
    book, topic = w.books.pop() if w.books else (f"The {w.town()} Diaries", "a year in a harbour town")
    job, year = w.pick(F.NOVELIST_JOBS), w.year(1820, 1960)
    surface, form = person_forms(given, surname, kind, w)
    question = w.pick((
        f"This {job}'s {year} novel \"{book}\" follows {topic}",
        f"\"{book}\", a {year} novel about {topic}, made this {job} famous",
    ))
    if form == "surname-first":
        support = [doc("Library catalogue", f"{surname}, {given}. {book}. {year}. Novel; subject: {topic}.")]
    else:
        support = [doc(f"{book} - {w.pick(F.SITES)}", f"{book} is a {year} novel by {surface}. It follows {topic}.")]
    decoys = []
    for i in range(2 if kind == "distractor" else 1):
        dg, ds = w.person(avoid=surname)
        if kind == "distractor" and i == 0:
            text = f"{dg} {ds} reviewed {book} in {year + 1} and called it the best book about {topic.split(' ', 2)[-1]}."
        else:
            other = w.pick(F.BOOKS)[0]
            text = f"{other} is a {w.year(1820, 1960)} novel by {dg} {ds}."
        decoys.append(doc(f"Book notes - {w.pick(F.SITES)}", text))
    return question, support, decoys, [f"{given} {surname}", surname], surface, "person"


def frame_book(w: World, kind: str):
    given, surname = w.person()
    book, topic = w.books.pop() if w.books else (f"The {w.town()} Diaries", "a year in a harbour town")
    year = w.year(1820, 1960)
    question = f"{given} {surname} wrote this {year} novel about {topic}"
    support = [doc(f"{given} {surname} - {w.pick(F.SITES)}", f"{given} {surname} is best known for {book} ({year}), a novel about {topic}.")]
    decoys = []
    for i in range(2 if kind == "distractor" else 1):
        other, other_topic = w.pick([b for b in F.BOOKS if b[0] != book])
        if kind == "distractor" and i == 0:
            text = f"{given} {surname} also wrote {other} ({year + w.rng.randint(2, 15)}), about {other_topic}."
        else:
            dg, ds = w.person(avoid=surname)
            text = f"{dg} {ds} wrote {other} ({w.year(1820, 1960)}), a novel about {other_topic}."
        decoys.append(doc(f"Novels - {w.pick(F.SITES)}", text))
    aliases = [book]
    return question, support, decoys, aliases, book, "title"


def frame_festival(w: World, kind: str):
    if kind == "noncanonical" and w.prefixed:
        full, short, rest = w.prefixed.pop()
        answers, surface = [f"{full} {rest}"], f"{short} {rest}"
    else:
        town = w.town()
        answers, surface = [town], town
    festival, month, region = w.pick(F.FESTIVALS), w.pick(F.MONTHS), w.pick(F.REGIONS)
    question = w.pick((
        f"Each {month} this town in {region} holds the {festival}",
        f"The {festival}, held every {month}, is the pride of this town in {region}",
    ))
    support = [doc(f"{surface} - {w.pick(F.SITES)}", f"Every {month} crowds arrive in {surface} for the {festival}, the biggest event in {region}.")]
    decoys = []
    for i in range(2 if kind == "distractor" else 1):
        dt = w.town()
        if kind == "distractor" and i == 0:
            text = f"{dt}, also in {region}, holds its own {w.pick([f for f in F.FESTIVALS if f != festival])} every {month}."
        elif kind == "distractor":
            text = f"The {festival} of {dt} in {w.pick([r for r in F.REGIONS if r != region])} was abandoned in {w.year(1850, 1950)}."
        else:
            text = f"{dt} in {w.pick(F.REGIONS)} is known for its {w.pick(F.FESTIVALS)} each {w.pick(F.MONTHS)}."
        decoys.append(doc(f"{dt} - {w.pick(F.SITES)}", text))
    return question, support, decoys, answers, surface, "place"


def frame_peak(w: World, kind: str):
    name = w.mountains.pop()
    rng_name, height = w.pick(F.RANGES), w.rng.randint(1200, 3400)
    surface = f"Mt. {name}" if kind == "noncanonical" else f"Mount {name}"
    question = w.pick((
        f"At {height} metres, this peak is the highest point of the {rng_name}",
        f"Climbers of the {rng_name} aim for this {height}-metre summit, its highest",
    ))
    support = [doc(f"{rng_name} - {w.pick(F.SITES)}", f"{surface} ({height} m) is the highest summit of the {rng_name}. {w.pick(F.NOISE)}")]
    decoys = []
    others = [m for m in F.MOUNTAINS if m != name]
    for i in range(2 if kind == "distractor" else 1):
        other = w.pick(others)
        if kind == "distractor":
            text = f"Mount {other} ({height - w.rng.randint(40, 300)} m) is the second-highest summit of the {rng_name}."
            if i:
                text = f"Mount {other} ({height} m) is the highest point of the {w.pick([r for r in F.RANGES if r != rng_name])}."
        else:
            text = f"Mount {other} rises above {w.pick(F.REGIONS)} and is popular with walkers."
        decoys.append(doc(f"Mount {other} - {w.pick(F.SITES)}", text))
    return question, support, decoys, [f"Mount {name}", name], surface, "place"


def frame_dish(w: World, kind: str):
    dish, a, b = w.dishes.pop()
    town = w.town()
    question = f"{a.capitalize()} and {b} go into this signature dish of {town}"
    support = [doc(f"Food of {town} - {w.pick(F.SITES)}", f"No visit to {town} is complete without {dish}, made with {a} and {b}.")]
    decoys = []
    for i in range(2 if kind == "distractor" else 1):
        other, oa, ob = w.pick([d for d in F.DISHES if d[0] != dish])
        if kind == "distractor" and i == 0:
            text = f"Another favourite in {town} is {other}, made with {oa} and {b}."
        else:
            text = f"{other.capitalize()} comes from {w.town()} and uses {oa} and {ob}."
        decoys.append(doc(f"Regional cooking - {w.pick(F.SITES)}", text))
    return question, support, decoys, [dish], dish, "dish"


def frame_voyage(w: World, kind: str):
    given, surname = w.person()
    ship, island, year = w.pick(F.SHIPS), w.pick(F.ISLANDS), w.year(1700, 1890)
    surface, form = person_forms(given, surname, kind, w)
    question = w.pick((
        f"In {year} this captain sailed the {ship} to {island}",
        f"This captain brought the {ship} safely to {island} in {year}",
    ))
    if form == "surname-first":
        support = [doc("Harbour log", f"{year}. Vessel: {ship}. Master: {surname}, {given}. Destination: {island}. Arrived safely.")]
    elif form == "title":
        support = [doc(f"{ship} - {w.pick(F.SITES)}", f"{surface} took the {ship} to {island} in {year}.")]
    else:
        support = [doc(f"{ship} - {w.pick(F.SITES)}", f"The {ship}, under captain {surface}, reached {island} in {year}.")]
    decoys = []
    for i in range(2 if kind == "distractor" else 1):
        dg, ds = w.person(avoid=surname)
        if kind == "distractor" and i == 0:
            text = f"The {ship}, under captain {dg} {ds}, reached {w.pick([x for x in F.ISLANDS if x != island])} in {year + w.rng.randint(4, 20)}."
        elif kind == "distractor":
            text = f"The {w.pick([s for s in F.SHIPS if s != ship])}, under captain {dg} {ds}, reached {island} in {year}."
        else:
            text = f"Captain {dg} {ds} commanded the {w.pick(F.SHIPS)} for twenty years."
        decoys.append(doc(f"Ships - {w.pick(F.SITES)}", text))
    return question, support, decoys, [f"{given} {surname}", surname], surface, "person"


def frame_species(w: World, kind: str):
    given, surname = w.person()
    creature, region, year = w.pick(F.CREATURES), w.pick(F.REGIONS), w.year(1790, 1930)
    surface, form = person_forms(given, surname, kind, w)
    question = f"In {year} this naturalist first described the {creature} of {region} that now bears the naturalist's name"
    if form == "surname-first":
        support = [doc("Museum catalogue", f"{surname}'s {creature}. Described by: {surname}, {given} ({year}). Range: {region}.")]
    else:
        support = [doc(f"{surname}'s {creature} - {w.pick(F.SITES)}", f"{surname}'s {creature} of {region} was first described in {year} by {surface}.")]
    decoys = []
    for i in range(2 if kind == "distractor" else 1):
        dg, ds = w.person(avoid=surname)
        if kind == "distractor" and i == 0:
            text = f"{ds}'s {creature} of {w.pick([r for r in F.REGIONS if r != region])} was first described in {year} by {dg} {ds}."
        else:
            text = f"{ds}'s {w.pick(F.CREATURES)} was first described in {w.year(1790, 1930)} by {dg} {ds}."
        decoys.append(doc(f"{ds}'s species - {w.pick(F.SITES)}", text))
    return question, support, decoys, [f"{given} {surname}", surname], surface, "person"


def frame_inventor(w: World, kind: str):
    given, surname = w.person()
    job, device, town, year = w.pick(F.INVENTOR_JOBS), w.pick(F.DEVICES), w.town(), w.year(1760, 1900)
    surface, form = person_forms(given, surname, kind, w)
    question = w.pick((
        f"In {year} this {job} from {town} patented the {device}",
        f"The {device} was patented in {year} by this {job} of {town}",
    ))
    if form == "surname-first":
        support = [doc("Patent register", f"Patent {w.rng.randint(100, 999)}: {device}. Holder: {surname}, {given}; {job}, {town}. Year: {year}.")]
    else:
        support = [doc(f"The {device} - {w.pick(F.SITES)}", f"{surface}, a {job} of {town}, patented the {device} in {year}.")]
    decoys = []
    for i in range(2 if kind == "distractor" else 1):
        dg, ds = w.person(avoid=surname)
        if kind == "distractor" and i == 0:
            text = f"{dg} {ds}, a {w.pick(F.INVENTOR_JOBS)} of {w.town()}, patented an improved {device} in {year + w.rng.randint(5, 25)}."
        elif kind == "distractor":
            text = f"{dg} {ds}, a {job} of {town}, patented the {w.pick([d for d in F.DEVICES if d != device])} in {year}."
        else:
            text = f"{dg} {ds}, a {w.pick(F.INVENTOR_JOBS)} of {w.town()}, patented the {w.pick(F.DEVICES)} in {w.year()}."
        decoys.append(doc(f"Inventions - {w.pick(F.SITES)}", text))
    return question, support, decoys, [f"{given} {surname}", surname], surface, "person"


# (frame, item count, kinds it supports); counts sum to the sample size.
PLAN = (
    (frame_builder, 28, KINDS),
    (frame_author, 16, KINDS),
    (frame_book, 14, ("verbatim", "distractor")),
    (frame_festival, 30, KINDS),
    (frame_peak, 16, KINDS),
    (frame_dish, 12, ("verbatim", "distractor")),
    (frame_voyage, 28, KINDS),
    (frame_species, 24, KINDS),
    (frame_inventor, 32, KINDS),
)


def kinds_for(count: int, allowed: tuple[str, ...], rng: random.Random) -> list[str]:
    """Spread ``count`` items over the allowed kinds as evenly as possible."""
    kinds = [allowed[i % len(allowed)] for i in range(count)]
    rng.shuffle(kinds)
    return kinds


def render_context(docs: list[tuple[str, str]]) -> str:
    return "\n".join(f"[DOC] [TLE] {title} [PAR] {text}" for title, text in docs)


def build_items(seed: int = SEED) -> list[dict]:
    rng = random.Random(seed)
    world = World(rng)
    items = []
    for frame, count, allowed in PLAN:
        for kind in kinds_for(count, allowed, rng):
            if frame is frame_festival and kind == "noncanonical" and not world.prefixed:
                kind = "distractor"
            question, support, decoys, answers, surface, answer_type = frame(world, kind)
            docs = support + decoys + [noise_doc(world)]
            rng.shuffle(docs)
            where = next(i for i, d in enumerate(docs) if d in support) + 1
            reference = (
                f"Supporting snippet: #{where} (\"{support[0][1]}\"). The answer appears there as \"{surface}\"; "
                f"expected answer: {answers[0]}."
            )
            items.append({
                "question": question,
                "context": render_context(docs),
                "answers": answers,
                "task_type": kind,
                "answer_type": answer_type,
                "reference": reference,
            })
    return items


def split_items(items: list[dict], seed: int = SEED) -> dict[str, list[dict]]:
    """Stratified by challenge kind, so every split has the same mix."""
    rng = random.Random(seed + 1)
    by_kind: dict[str, list[dict]] = {}
    for item in items:
        by_kind.setdefault(item["task_type"], []).append(item)
    total = len(items)
    splits: dict[str, list[dict]] = {name: [] for name in SPLIT_SIZES}
    for kind in sorted(by_kind):
        group = by_kind[kind]
        rng.shuffle(group)
        cursor = 0
        names = list(SPLIT_SIZES)
        for i, name in enumerate(names):
            n = len(group) - cursor if i == len(names) - 1 else round(len(group) * SPLIT_SIZES[name] / total)
            splits[name] += group[cursor : cursor + n]
            cursor += n
    for name, rows in splits.items():
        rng.shuffle(rows)
        for i, row in enumerate(rows):
            row["id"] = f"sqs-{name}-{i + 1:03d}"
    return {name: [{"id": r["id"], **{k: v for k, v in r.items() if k != "id"}} for r in rows] for name, rows in splits.items()}


def write(out: Path, seed: int = SEED) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    splits = split_items(build_items(seed), seed)
    files = {}
    for name, rows in splits.items():
        text = json.dumps(rows, ensure_ascii=False, indent=1) + "\n"
        (out / f"{name}.json").write_text(text, encoding="utf-8")
        files[name] = {"file": f"{name}.json", "count": len(rows), "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest()}
    manifest = {
        "benchmark": "SearchQA (bundled synthetic sample)",
        "licence": "CC0-1.0",
        "generator": "scripts/make_sample.py",
        "generator_version": GENERATOR_VERSION,
        "seed": seed,
        "splits": files,
        "notes": [
            "Invented entities and snippets written for skillopt-envs-searchqa; no Jeopardy clues or web text.",
            "task_type is the challenge kind: verbatim, distractor or noncanonical.",
        ],
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return manifest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args(argv)
    manifest = write(args.out, args.seed)
    counts = ", ".join(f"{k} {v['count']}" for k, v in manifest["splits"].items())
    print(f"wrote {args.out} ({counts})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
