#!/bin/sh
# The event schema (docs/schema/fabric-event.schema.json) against the
# documentation and the encoder, with ajv (tests/interop/kafka_js/validate.js),
# a validator independent of the C code:
#   - every ```json example of docs/EVENTS.md is valid, and every type of the
#     schema has an example there;
#   - the encoder's document of one event of every kind (the cases of
#     kafka_event_json_test, written by its `dump` mode) is valid, every type
#     again present;
#   - the schema is not a rubber stamp: ten broken variants of valid
#     documents (a field missing, a wrong type, a figure of another kind, an
#     end without end time, ...) are each refused.
#   kafka_schema_test.sh KAFKA_EVENT_JSON_TEST SOURCE_DIR [NODE]
set -u
enc=$1
src=$2
node=${3:-node}
here=$(dirname "$0")
# shellcheck source=tests/integration/lib.sh
. "$here/lib.sh"
lib_init
mock=""
# shellcheck source=tests/integration/kafka_lib.sh
. "$here/kafka_lib.sh"
kafka_prereqs || {
    summary
    exit 1
}

check "every EVENTS.md example is valid, every type has one" \
    schema_check --all-types "$src/docs/EVENTS.md"
grep -c '^```json$' "$src/docs/EVENTS.md" >"$tmp/n_examples"
check "EVENTS.md has at least 13 examples" ge "$(cat "$tmp/n_examples")" 13

"$enc" dump "$tmp/enc.jsonl"
check_eq "the encoder wrote its documents" "$?" 0
check "the encoder's documents are valid, every type present" \
    schema_check --all-types "$tmp/enc.jsonl"

python3 - "$tmp/enc.jsonl" "$tmp/broken.jsonl" <<'PY'
import json, sys
docs = {}
for line in open(sys.argv[1]):
    d = json.loads(line)
    docs.setdefault((d["type"], d["phase"]), d)
def mut(key, fn):
    d = json.loads(json.dumps(docs[key]))
    fn(d)
    return d
broken = [
    mut(("microburst", "end"), lambda d: d.pop("id")),
    mut(("microburst", "end"), lambda d: d.update(type="nanoburst")),
    mut(("microburst", "end"), lambda d: d.pop("peak_utilization")),
    mut(("microburst", "end"), lambda d: (d.pop("end_ns"), d.pop("end"), d.pop("duration_seconds"))),
    mut(("burst", "start"), lambda d: d.update(time_ns=int(d["time_ns"]))),
    mut(("burst", "start"), lambda d: d.update(utilisation=0.5)),
    mut(("counter_reset", "instant"), lambda d: d.update(phase="start")),
    mut(("cnp_spike", "start"), lambda d: d.update(time="2023-11-14 22:13:20")),
    mut(("stream_down", "start"), lambda d: d.pop("stream")),
    mut(("queue_peak", "instant"), lambda d: d.update(labels={"queue": 3})),
]
with open(sys.argv[2], "w") as f:
    for d in broken:
        f.write(json.dumps(d) + "\n")
PY
schema_check "$tmp/broken.jsonl" >"$tmp/broken.out"
check_eq "the schema refuses broken documents (exit status)" "$?" 1
check_eq "each of the ten is refused" "$(grep -c '^INVALID' "$tmp/broken.out")" 10
summary
