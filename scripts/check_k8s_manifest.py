"""Check Kubernetes manifests against the official `kubernetes` Python client's models.

Usage: check_k8s_manifest.py FILE...   (exit 1 with one line per problem)

Every YAML document is deserialized into the client's model class for its kind
(`Job` -> `kubernetes.client.V1Job`) with the client's own ApiClient, and walked
strictly: every key must be a field of the model (its `attribute_map`), recursively
through `openapi_types`, so a misspelled field fails instead of being dropped.
"""

import re
import sys

import kubernetes.client as k8s
import yaml

PRIMITIVES = {"str", "int", "bool", "float", "object", "datetime", "date"}


def strict(data, type_name, path, problems):
    """Walk `data` as `type_name`; append a line to `problems` for each unknown field."""
    if data is None or type_name in PRIMITIVES:
        return
    m = re.fullmatch(r"list\[(.+)\]", type_name)
    if m:
        if not isinstance(data, list):
            problems.append(f"{path}: expected a list")
            return
        for i, item in enumerate(data):
            strict(item, m.group(1), f"{path}[{i}]", problems)
        return
    m = re.fullmatch(r"dict\(([^,]+), (.+)\)", type_name)
    if m:
        if not isinstance(data, dict):
            problems.append(f"{path}: expected a map")
            return
        for key, value in data.items():
            strict(value, m.group(2), f"{path}.{key}", problems)
        return
    model = getattr(k8s, type_name, None)
    if model is None:
        problems.append(f"{path}: unknown model {type_name}")
        return
    if not isinstance(data, dict):
        problems.append(f"{path}: expected an object ({type_name})")
        return
    by_json = {json_name: attr for attr, json_name in model.attribute_map.items()}
    for key, value in data.items():
        attr = by_json.get(key)
        if attr is None:
            problems.append(f"{path}.{key}: not a field of {type_name}")
            continue
        strict(value, model.openapi_types[attr], f"{path}.{key}", problems)


def check(file):
    problems = []
    with open(file, encoding="utf-8") as f:
        docs = [d for d in yaml.safe_load_all(f) if d is not None]
    if not docs:
        problems.append(f"{file}: no YAML document")
    client = k8s.ApiClient()
    for n, doc in enumerate(docs):
        version = doc.get("apiVersion", "")
        kind = doc.get("kind", "")
        group_version = version.split("/")[-1].capitalize()
        type_name = f"{group_version}{kind}"
        where = f"{file}[{n}] ({kind})"
        if getattr(k8s, type_name, None) is None:
            problems.append(f"{where}: no model {type_name} for apiVersion {version!r}")
            continue
        before = len(problems)
        strict(doc, type_name, where, problems)
        if len(problems) > before:
            continue
        try:
            # The client's own deserializer (required fields, enum values).
            obj = client._ApiClient__deserialize(doc, type_name)
        except (ValueError, TypeError) as e:
            problems.append(f"{where}: {e}")
            continue
        print(f"{where}: {type(obj).__name__} {obj.metadata.name}")
    return problems


def main():
    problems = []
    for file in sys.argv[1:]:
        problems.extend(check(file))
    for p in problems:
        print(p, file=sys.stderr)
    sys.exit(1 if problems or len(sys.argv) < 2 else 0)


if __name__ == "__main__":
    main()
