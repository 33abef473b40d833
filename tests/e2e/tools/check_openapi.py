#!/usr/bin/python3
"""Validates recorded HTTP answers against an OpenAPI 3.1 document.

    check_openapi.py SPEC.yaml EXCHANGES DIR

EXCHANGES has one line per request, tab-separated: NAME, status, method, URL, content
type; DIR/NAME.b is the answer's body (tests/e2e/web_panel.sh writes both). Each answer
must be documented: its path and method in `paths` (an undocumented path may only be a
404 with problem details), its status under `responses`, its media type under `content`,
and a JSON body must validate against the schema (JSON Schema 2020-12, as OpenAPI 3.1
says; `$ref`s resolve inside SPEC). Every operation in SPEC must have answered 2xx at
least once. The document itself is checked for what the tools that read it rely on:
the version, unique operationIds, `responses` on every operation (with the 401 and 403
every route can answer), `$ref`s that resolve.
Exit 0 when all holds; else every failure on stderr and exit 1.

Needs python3-yaml and python3-jsonschema (Debian packages).
"""
import json
import re
import sys
from urllib.parse import urlsplit

import jsonschema
import yaml

METHODS = ("get", "put", "post", "delete", "patch", "head", "options")


def refs_in(node, out):
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "$ref" and isinstance(v, str):
                out.append(v)
            else:
                refs_in(v, out)
    elif isinstance(node, list):
        for v in node:
            refs_in(v, out)


def resolve_pointer(doc, ref):
    if not ref.startswith("#/"):
        return None
    node = doc
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def check_document(spec, errors):
    if not str(spec.get("openapi", "")).startswith("3.1"):
        errors.append("spec: openapi is not 3.1.x")
    info = spec.get("info") or {}
    if not info.get("title") or not info.get("version"):
        errors.append("spec: info needs title and version")
    seen_ids = set()
    for path, item in (spec.get("paths") or {}).items():
        if not path.startswith("/"):
            errors.append(f"spec: path {path!r} does not start with /")
        for method, op in item.items():
            if method not in METHODS:
                continue
            where = f"{method.upper()} {path}"
            op_id = op.get("operationId")
            if not op_id:
                errors.append(f"spec: {where} has no operationId")
            elif op_id in seen_ids:
                errors.append(f"spec: operationId {op_id} used twice")
            seen_ids.add(op_id)
            if not op.get("responses"):
                errors.append(f"spec: {where} has no responses")
                continue
            # Every route is behind the login (401) and, but for "who am I", a token's
            # scope (403): refusals that hold for all of them must be documented on all.
            need = {"401"} if path == "/api/v1/session" else {"401", "403"}
            for status in sorted(need - set(op["responses"])):
                errors.append(f"spec: {where} does not document {status}")
    refs = []
    refs_in(spec, refs)
    for ref in sorted(set(refs)):
        if resolve_pointer(spec, ref) is None:
            errors.append(f"spec: $ref {ref} does not resolve")
    for name, schema in ((spec.get("components") or {}).get("schemas") or {}).items():
        try:
            jsonschema.Draft202012Validator.check_schema(schema)
        except jsonschema.SchemaError as e:
            errors.append(f"spec: schema {name} is not valid JSON Schema: {e.message}")


def deref(spec, node):
    while isinstance(node, dict) and "$ref" in node:
        node = resolve_pointer(spec, node["$ref"])
    return node


def validate_body(spec, schema, body, where, errors):
    try:
        value = json.loads(body)
    except ValueError as e:
        errors.append(f"{where}: the body is not JSON ({e}): {body[:200]!r}")
        return
    # The schema may $ref into components: validate it as a subschema of the document.
    resolver = jsonschema.RefResolver.from_schema(spec)
    validator = jsonschema.Draft202012Validator(schema, resolver=resolver)
    for err in sorted(validator.iter_errors(value), key=lambda e: list(e.path)):
        at = "/".join(str(p) for p in err.path) or "(root)"
        errors.append(f"{where}: {at}: {err.message[:300]}")


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    spec_path, exchanges_path, body_dir = sys.argv[1:]
    with open(spec_path, encoding="utf-8") as f:
        spec = yaml.safe_load(f)
    errors = []
    check_document(spec, errors)
    paths = spec.get("paths") or {}
    problem = resolve_pointer(spec, "#/components/schemas/Problem")
    succeeded = set()
    count = 0
    with open(exchanges_path, encoding="utf-8") as f:
        lines = [l.rstrip("\n") for l in f if l.strip()]
    for line in lines:
        fields = line.split("\t")
        if len(fields) < 4:
            errors.append(f"exchanges: malformed line {line!r}")
            continue
        name, status, method, url = fields[:4]
        ctype = fields[4] if len(fields) > 4 else ""
        count += 1
        path = urlsplit(url).path
        media = ctype.split(";")[0].strip().lower()
        where = f"{name}: {method} {path} → {status}"
        with open(f"{body_dir}/{name}.b", encoding="utf-8", errors="replace") as b:
            body = b.read()
        op = (paths.get(path) or {}).get(method.lower())
        if op is None:
            if status == "404" and media == "application/problem+json" and problem:
                validate_body(spec, problem, body, where, errors)
            else:
                errors.append(f"{where}: no such operation in {spec_path}")
            continue
        responses = op.get("responses") or {}
        resp = responses.get(status) or responses.get(status[0] + "XX") or responses.get("default")
        if resp is None:
            errors.append(f"{where}: status {status} is not documented for this operation")
            continue
        resp = deref(spec, resp)
        content = resp.get("content") or {}
        if not content:
            if body.strip():
                errors.append(f"{where}: documented without a body, answered {len(body)} bytes")
        elif media not in content:
            errors.append(f"{where}: media type {media!r} is not documented ({', '.join(content)})")
        else:
            schema = content[media].get("schema")
            if schema is not None:
                if media.endswith("json"):
                    validate_body(spec, schema, body, where, errors)
                elif schema.get("pattern") and not re.search(schema["pattern"], body):
                    errors.append(f"{where}: the body does not match {schema['pattern']!r}")
        if status.startswith("2"):
            succeeded.add((path, method.lower()))
    for path, item in paths.items():
        for method in item:
            if method in METHODS and (path, method) not in succeeded:
                errors.append(f"coverage: {method.upper()} {path} never answered 2xx in this run")
    for e in errors:
        print(f"openapi: {e}", file=sys.stderr)
    ops = sum(1 for item in paths.values() for m in item if m in METHODS)
    print(f"openapi: {count} answers checked against {ops} operations: "
          f"{'all documented' if not errors else f'{len(errors)} problem(s)'}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
