"""Validate structured output against the small subset of JSON Schema our prompts use.

Covers type, required, properties, items, enum, minLength, minItems: enough to catch the
ways a model breaks a contract (missing key, wrong type, empty string). Returns problems
as short lines that go back to the model in the one repair attempt.
"""

from __future__ import annotations

_TYPES = {
    "object": dict,
    "array": list,
    "string": str,
    "boolean": bool,
    "integer": int,
    "number": (int, float),
    "null": type(None),
}


def problems(value, schema: dict, path: str = "$") -> list[str]:
    out: list[str] = []
    expected = schema.get("type")
    if expected:
        names = expected if isinstance(expected, list) else [expected]
        ok = any(
            isinstance(value, _TYPES[n]) and not (n in ("integer", "number") and isinstance(value, bool)) for n in names
        )
        if not ok:
            return [f"{path}: expected {'/'.join(names)}, got {type(value).__name__}"]
    if "enum" in schema and value not in schema["enum"]:
        out.append(f"{path}: {value!r} is not one of {schema['enum']}")
    if isinstance(value, str) and len(value) < schema.get("minLength", 0):
        out.append(f"{path}: shorter than {schema['minLength']} characters")
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                out.append(f"{path}: missing required key '{key}'")
        for key, sub in schema.get("properties", {}).items():
            if key in value:
                out.extend(problems(value[key], sub, f"{path}.{key}"))
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            out.append(f"{path}: fewer than {schema['minItems']} items")
        if "items" in schema:
            for i, v in enumerate(value):
                out.extend(problems(v, schema["items"], f"{path}[{i}]"))
    return out
