#!/usr/bin/env python3
# Validates exercise.yaml files against exercises/schema.json; tests/behaviour/schema_test.cc runs it on every
# shipped exercise. Exit 0: all valid; 1: some file is not (one line per problem); 77: a module is missing.
import sys

try:
    import jsonschema
    import yaml
except ImportError as missing:
    print(f"skipped: {missing.name} is not installed (Debian: python3-jsonschema, python3-yaml)")
    sys.exit(77)

import json
import re


class Yaml12Numbers(yaml.SafeLoader):
    """PyYAML follows YAML 1.1, where `1e-5` (no dot) is a string; yaml-cpp, which the loader uses, reads
    it as the number YAML 1.2 says it is. Without this, the docs' own `compare: {rel: 1e-5}` fails here."""


Yaml12Numbers.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"),
    list("-+0123456789"))


def where(error):
    """The failing value's path as the loader names fields: kernel.params[0].type."""
    path = ""
    for part in error.absolute_path:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path or "(top)"


def main(argv):
    if len(argv) < 3:
        print("usage: validate_schema.py SCHEMA FILE...")
        return 2
    with open(argv[1]) as f:
        schema = json.load(f)
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    validator = validator_class(schema)
    failed = False
    for name in argv[2:]:
        try:
            with open(name) as f:
                document = yaml.load(f, Loader=Yaml12Numbers)
        except (OSError, yaml.YAMLError) as error:
            print(f"{name}: {error}")
            failed = True
            continue
        for error in sorted(validator.iter_errors(document), key=lambda e: list(map(str, e.absolute_path))):
            print(f"{name}: {where(error)}: {error.message}")
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
