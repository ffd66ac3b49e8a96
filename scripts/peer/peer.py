#!/usr/bin/env python3
"""A peer harness: the Typed Decisions benchmark written the way a Python user would write it,
on httpx, so `deno task perf` can time decibench against it side by side.

It does the same job as `deno task bench` without reports or an index: loads and verifies the
vendored test split, sends one System One request per case (all five questions), validates each
reply with the strict rules of docs/engines.md, scores each decision as docs/metrics.md does
(accuracy, KL, Brier, 10-bin ECE), appends the decisions of each case to decisions.jsonl as it
is answered, and writes summary.json at the end.

Usage:
    python3 scripts/peer/peer.py --url http://127.0.0.1:8080 [--parallel 4] [--limit N]
        [--model M] [--out DIR] [--timeout SECONDS] [--retries N] [--backoff SECONDS]
        [--api-key-env NAME] [--dataset DIR]

Exit status: 0 when every decision was answered, 1 when any errored, 2 for bad arguments.
Needs Debian's python3-httpx (apt-get install python3-httpx).
"""

import argparse
import asyncio
import gzip
import hashlib
import json
import math
import os
import sys
import time

import httpx

SUM_TOLERANCE = 1e-3
KL_FLOOR = 1e-12
BINS = 10
TRANSIENT = {"rate_limited", "overloaded", "unavailable", "timeout", "network"}
HERE = os.path.dirname(os.path.abspath(__file__))
VENDOR = os.path.normpath(os.path.join(HERE, "..", "..", "vendor", "typed-decisions"))


class Malformed(Exception):
    """A reply that breaks the strict answer rules; args[0] lists the problems."""


class EndpointError(Exception):
    """A failed request: its error kind, message and Retry-After delay (seconds or None)."""

    def __init__(self, kind, message, retry_after=None):
        super().__init__(message)
        self.kind = kind
        self.retry_after = retry_after


def endpoint_url(base):
    """The System One URL rule: strip a trailing /, append /v1 unless present, then /systemone."""
    path = base.rstrip("/")
    if path.endswith("/systemone"):
        return path
    if not path.endswith("/v1"):
        path += "/v1"
    return path + "/systemone"


def load_cases(directory):
    """The test split, checked against its manifest's sha256 before anything is sent."""
    with open(os.path.join(directory, "manifest.json"), encoding="utf-8") as f:
        entry = json.load(f)["splits"]["test"]
    with open(os.path.join(directory, entry["data"]), "rb") as f:
        data = gzip.decompress(f.read())
    digest = hashlib.sha256(data).hexdigest()
    if digest != entry["sha256"]:
        raise SystemExit(f"Cannot load the test split: sha256 {digest} is not the manifest's")
    cases = [json.loads(line) for line in data.decode("utf-8").splitlines()]
    if len(cases) != entry["rows"]:
        raise SystemExit(f"Cannot load the test split: {len(cases)} rows, manifest says {entry['rows']}")
    return cases


def options_of(question):
    """Answer keys in tie-break order: choice names, score levels "0".."n-1", noul true/false."""
    kind = question["type"]
    if kind == "choice":
        criteria = question["criteria"]
        return list(criteria) if isinstance(criteria, list) else list(criteria.keys())
    if kind == "score":
        return [str(i) for i in range(len(question["criteria"]))]
    return ["true", "false"]


def is_probability(value):
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(value)
        and 0 <= value <= 1
    )


def reject_constant(name):
    # JSON has no NaN or Infinity: refuse them as a strict parser does.
    raise ValueError(f"{name} is not JSON")


def parse_reply(text, questions):
    """Strict validation, as decibench validates. Returns ({name: distribution}, input_tokens)."""
    try:
        body = json.loads(text, parse_constant=reject_constant)
    except ValueError:
        raise Malformed([f"reply: body is not valid JSON ({len(text)} bytes)"])
    if not isinstance(body, dict):
        raise Malformed(["reply: expected an object"])
    answers = body.get("answers")
    if not isinstance(answers, dict):
        raise Malformed(["answers: expected an object"])
    for key in ("model", "id", "provider"):
        if key in body and not isinstance(body[key], str):
            raise Malformed([f"{key}: expected a string"])
    usage = body.get("usage")
    if usage is not None and not isinstance(usage, dict):
        raise Malformed(["usage: expected an object"])
    for key in ("input_tokens", "output_tokens", "cost"):
        value = (usage or {}).get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise Malformed([f"usage.{key}: expected a number"])
    issues = []
    out = {}
    for name, question in questions.items():
        where = f"answers.{name}"
        if name not in answers:
            issues.append(f"{where}: missing")
            continue
        raw = answers[name]
        if not isinstance(raw, dict):
            issues.append(f"{where}: expected an object")
            continue
        kind = "noul" if raw.get("type") == "bool" else raw.get("type")
        if kind is not None and kind != question["type"]:
            issues.append(f"{where}.type: expected {question['type']!r}, got {raw.get('type')!r}")
            continue
        if question["type"] == "noul":
            p = raw.get("noul")
            if not is_probability(p):
                issues.append(f"{where}.noul: {p!r} is not a finite number in [0, 1]")
                continue
            out[name] = {"true": p, "false": 1 - p}
            continue
        dist = raw.get("probabilities")
        if not isinstance(dist, dict):
            issues.append(f"{where}.probabilities: expected an object of probabilities")
            continue
        options = options_of(question)
        before = len(issues)
        missing = [k for k in options if k not in dist]
        extra = [k for k in dist if k not in options]
        if missing:
            issues.append(f"{where}.probabilities: missing {missing}")
        if extra:
            issues.append(f"{where}.probabilities: unexpected {extra}")
        total = 0.0
        for k in options:
            if k in dist:
                if not is_probability(dist[k]):
                    issues.append(f"{where}.probabilities.{k}: not a finite number in [0, 1]")
                else:
                    total += dist[k]
        if len(issues) == before and abs(total - 1) > SUM_TOLERANCE:
            issues.append(f"{where}.probabilities: sum {total:.6f}, not 1 ± {SUM_TOLERANCE}")
        if len(issues) == before:
            out[name] = {k: dist[k] for k in options}
    if issues:
        raise Malformed(issues)
    tokens = (usage or {}).get("input_tokens")
    return out, tokens


def kind_for_status(status):
    if status in (401, 403):
        return "authentication"
    if status in (400, 413, 422):
        return "invalid_request"
    if status in (404, 405, 501):
        return "unsupported_endpoint"
    if status == 429:
        return "rate_limited"
    if status == 529:
        return "overloaded"
    return "unavailable"


def retry_after(value):
    try:
        return min(max(float(value), 0.0), 60.0)
    except (TypeError, ValueError):
        return None


def score(question, predicted, gold):
    """Scoring as decibench scores: argmax (first listed wins a tie), correctness, KL and Brier."""
    options = options_of(question)
    if predicted is None:
        return {"answer": None, "confidence": None, "correct": False, "kl": None, "brier": None}
    answer, confidence = options[0], -math.inf
    for k in options:
        if predicted.get(k, 0) > confidence:
            answer, confidence = k, predicted.get(k, 0)
    g = gold["probabilities"]
    kl = 0.0
    for k, gk in g.items():
        if gk > 0:
            kl += gk * math.log(gk / max(predicted.get(k, 0), KL_FLOOR))
    brier = 0.0
    for k in dict.fromkeys([*g.keys(), *predicted.keys()]):
        d = predicted.get(k, 0) - g.get(k, 0)
        brier += d * d
    return {
        "answer": answer,
        "confidence": confidence,
        "correct": answer == gold["label"],
        "kl": kl,
        "brier": brier,
    }


def summarize(records):
    answered = [r for r in records if r["error"] is None]
    n = len(records)
    count = [0] * BINS
    right = [0] * BINS
    conf = [0.0] * BINS
    for r in answered:
        b = max(0, min(int(r["confidence"] * BINS), BINS - 1))
        count[b] += 1
        right[b] += 1 if r["correct"] else 0
        conf[b] += r["confidence"]
    ece = sum(abs(right[b] - conf[b]) for b in range(BINS) if count[b]) / len(answered) if answered else None

    def mean(key):
        return sum(r[key] for r in answered) / len(answered) if answered else None

    return {
        "decisions": n,
        "answered": len(answered),
        "errors": n - len(answered),
        "accuracy": sum(1 for r in answered if r["correct"]) / n if n else None,
        "kl": mean("kl"),
        "brier": mean("brier"),
        "ece": ece,
    }


async def ask(client, url, body, headers, retries, backoff):
    """One case: explicit, bounded retries of transient errors, honouring Retry-After."""
    attempts = 0
    while True:
        attempts += 1
        started = time.perf_counter()
        try:
            response = await client.post(url, content=body, headers=headers)
            text = response.text
            latency = (time.perf_counter() - started) * 1000
            if response.is_success:
                return text, attempts, latency
            kind = kind_for_status(response.status_code)
            error = EndpointError(
                kind,
                f"HTTP {response.status_code}: {text[:200]}",
                retry_after(response.headers.get("retry-after")),
            )
        except httpx.TimeoutException:
            error = EndpointError("timeout", f"no answer from {url}")
        except httpx.HTTPError as exc:
            error = EndpointError("network", f"cannot reach {url}: {exc}"[:200])
        error.attempts = attempts
        if error.kind in TRANSIENT and attempts <= retries:
            delay = error.retry_after if error.retry_after is not None else backoff * 2 ** (attempts - 1)
            await asyncio.sleep(delay)
            continue
        raise error


async def run(args):
    cases = load_cases(args.dataset)
    if args.limit is not None:
        cases = cases[: args.limit]
    url = endpoint_url(args.url)
    headers = {"content-type": "application/json"}
    key = os.environ.get(args.api_key_env) if args.api_key_env else None
    if key:
        headers["authorization"] = f"Bearer {key}"
    os.makedirs(args.out, exist_ok=True)
    fd = os.open(os.path.join(args.out, "decisions.jsonl"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND)
    by_case = {}
    next_index = 0
    limits = httpx.Limits(max_connections=args.parallel, max_keepalive_connections=args.parallel)
    async with httpx.AsyncClient(limits=limits, timeout=args.timeout) as client:

        async def worker():
            nonlocal next_index
            while next_index < len(cases):
                item = cases[next_index]
                next_index += 1
                questions = item["questions"]
                body = json.dumps(
                    {"model": args.model, "state": item["state"], "questions": questions},
                    ensure_ascii=False,
                    separators=(",", ":"),
                ).encode("utf-8")
                answers, tokens, error = {}, None, None
                attempts, latency = 0, None
                try:
                    text, attempts, latency = await ask(client, url, body, headers, args.retries, args.backoff)
                    answers, tokens = parse_reply(text, questions)
                except Malformed as exc:
                    error = {"kind": "malformed", "message": "; ".join(exc.args[0])}
                except EndpointError as exc:
                    error = {"kind": exc.kind, "message": str(exc)}
                    attempts = exc.attempts
                records = []
                for name, question in questions.items():
                    predicted = answers.get(name) if error is None else None
                    gold = item["gold"][name]
                    records.append({
                        "case": item["id"],
                        "workflow": item["workflow"],
                        "question": name,
                        "type": question["type"],
                        "predicted": predicted,
                        **score(question, predicted, gold),
                        "gold": gold["label"],
                        "latency_ms": None if latency is None else round(latency, 3),
                        "attempts": attempts,
                        "input_tokens": tokens if error is None else None,
                        "error": error,
                    })
                os.write(fd, "".join(json.dumps(r) + "\n" for r in records).encode("utf-8"))
                by_case[item["id"]] = records

        await asyncio.gather(*(worker() for _ in range(min(args.parallel, len(cases)) or 1)))
    os.close(fd)
    records = [r for item in cases for r in by_case.get(item["id"], [])]
    summary = summarize(records)
    with open(os.path.join(args.out, "summary.json"), "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=2)
        f.write("\n")
    print(json.dumps(summary))
    return 0 if summary["errors"] == 0 else 1


def main():
    parser = argparse.ArgumentParser(description="Typed Decisions peer harness on httpx")
    parser.add_argument("--url", required=True, help="base URL of the System One server")
    parser.add_argument("--parallel", type=int, default=4, help="requests in flight (default 4)")
    parser.add_argument("--limit", type=int, default=None, help="first N cases only")
    parser.add_argument("--model", default="default", help="model name sent (default 'default')")
    parser.add_argument("--out", default="peer-run", help="directory for decisions.jsonl, summary.json")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per request (default 120)")
    parser.add_argument("--retries", type=int, default=2, help="retries of transient errors (default 2)")
    parser.add_argument("--backoff", type=float, default=0.25, help="first retry delay in seconds without Retry-After (default 0.25)")
    parser.add_argument("--api-key-env", default=None, help="environment variable holding a bearer key")
    parser.add_argument("--dataset", default=VENDOR, help="vendored dataset folder")
    args = parser.parse_args()
    if args.parallel < 1 or (args.limit is not None and args.limit < 1) or args.retries < 0:
        parser.error("--parallel and --limit must be at least 1, --retries at least 0")
    sys.exit(asyncio.run(run(args)))


if __name__ == "__main__":
    main()
