"""What a run's config loses before it travels to remote workers: every credential.

A worker finds its key where ``skillopt run`` would on its machine (an environment
variable, ``skillopt keys set``), so the config it is sent must carry none. A key can sit
in more places than a secret-named field (``api_key``, ``access_token``):

* a URL's userinfo: ``https://user:PASSWORD@host/v1`` or ``https://TOKEN@host/v1``
  (the URL travels without it);
* a header in a backend's ``options`` (``{default_headers = {Authorization = "..."}}``):
  credential headers are emptied by name, whatever their value looks like;
* any text the pattern redactor recognises (a provider key, a bearer token, a
  ``?api-key=`` query parameter): the secret part is removed.

Values are emptied, never masked: a worker must not send a mask as a key.
"""

from __future__ import annotations

import re
from typing import Any

from skillopt.redact import MASK, is_secret_key, redact_text

#: ``scheme://userinfo@`` (the userinfo: no '/', '@' or whitespace)
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]{0,31}://)[^/@\s]{1,2048}@")
#: header names that carry a credential whatever their value looks like
_CREDENTIAL_HEADER = re.compile(
    r"(?i)^(?:proxy-)?authorization$|^cookie$|(?:^|[-_])(?:key|token|secret|signature|password|auth)$|subscription-key"
)


def without_secrets(data: Any) -> tuple[Any, list[str]]:
    """``data`` with every credential emptied, and the dotted paths of what was removed."""
    removed: list[str] = []
    return _clean(data, "", removed, headers=False), removed


def _clean(data: Any, path: str, removed: list[str], *, headers: bool) -> Any:
    if isinstance(data, dict):
        out = {}
        for key, value in data.items():
            where = f"{path}.{key}" if path else str(key)
            secret_named = is_secret_key(str(key)) or (headers and bool(_CREDENTIAL_HEADER.search(str(key))))
            if secret_named and isinstance(value, str):
                if value:
                    removed.append(where)
                out[key] = ""
            else:
                out[key] = _clean(value, where, removed, headers="header" in str(key).lower())
        return out
    if isinstance(data, list):
        return [_clean(v, f"{path}[{n}]", removed, headers=headers) for n, v in enumerate(data)]
    if isinstance(data, str):
        clean = _text_without_secrets(data)
        if clean != data:
            removed.append(path)
        return clean
    return data


def _text_without_secrets(text: str) -> str:
    text = _USERINFO.sub(r"\1", text) if "@" in text else text
    masked = redact_text(text)
    return masked if masked == text else masked.replace(MASK, "")
