"""Demangles Rust symbols (legacy `_ZN…E` mangling, as the component's name section and the perf
map carry them) in folded stacks for the flame graph, dropping the hash and perf's `_[j]` suffix.

    python demangle.py < stacks.folded > stacks-demangled.folded
"""

import re
import sys

ESCAPES = {
    "$LT$": "<", "$GT$": ">", "$RF$": "&", "$BP$": "*", "$SP$": "@", "$C$": ",", "$LP$": "(",
    "$RP$": ")", "$u20$": " ", "$u27$": "'", "$u3b$": ";", "$u5b$": "[", "$u5d$": "]",
    "$u7b$": "{", "$u7d$": "}", "$u7e$": "~", "$u21$": "!", "$u22$": '"', "$u2b$": "+",
}
SYMBOL = re.compile(r"_ZN((?:\d+[A-Za-z0-9_$.]+?)+)E(?:_\[j\])?")


def demangle_symbol(match: re.Match) -> str:
    body, parts, i = match[1], [], 0
    while i < len(body):
        digits = re.match(r"\d+", body[i:])
        if not digits:
            return match[0]
        n, i = int(digits[0]), i + len(digits[0])
        parts.append(body[i : i + n])
        i += n
    if parts and re.fullmatch(r"h[0-9a-f]{16}", parts[-1]):
        parts.pop()
    name = "::".join(p[1:] if p.startswith("_$") else p for p in parts)
    for code, char in ESCAPES.items():
        name = name.replace(code, char)
    # `;` separates frames in folded stacks.
    return name.replace("..", "::").replace(";", ",")


if __name__ == "__main__":
    for line in sys.stdin:
        sys.stdout.write(SYMBOL.sub(demangle_symbol, line))
