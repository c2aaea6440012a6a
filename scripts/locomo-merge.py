#!/usr/bin/env python3
"""Makes LoCoMo conversations twice as long, to measure recall on haystacks
the recall was never tuned on.

Each conversation of the input is followed by the sessions of the next one
(the last by the first's), numbered on from its own last session: the turn
ids ("D3:7") and the second conversation's question evidence are renumbered
to match, and the questions of both are asked of the whole. So every
question has twice the distractors, half of them from another pair of
speakers. `delta memory eval locomo` reads the output as it reads
locomo10.json.

    scripts/locomo-merge.py ../shared/evaldata/locomo/locomo-dev.json > merged.json
    delta memory eval locomo --budget 2000 merged.json
"""

import copy
import json
import re
import sys

SESSION = re.compile(r"session_(\d+)$")
# An evidence id, also in its malformed forms ("D:11:26", "D8:6; D9:17").
TURN = re.compile(r"D:?(\d+):")


def sessions(conv):
    """The highest session number of a conversation, 0 when it has none."""
    return max((int(m.group(1)) for k in conv if (m := SESSION.match(k))), default=0)


def renumber(text, by):
    return TURN.sub(lambda m: f"D{int(m.group(1)) + by}:", text)


def merge(first, second):
    out = copy.deepcopy(first)
    conv, more = out["conversation"], second["conversation"]
    by = sessions(conv)
    for i in range(1, sessions(more) + 1):
        if f"session_{i}" not in more:
            continue
        conv[f"session_{i + by}_date_time"] = more[f"session_{i}_date_time"]
        conv[f"session_{i + by}"] = [dict(t, dia_id=renumber(t["dia_id"], by)) for t in more[f"session_{i}"]]
    for q in second["qa"]:
        out["qa"].append(dict(q, evidence=[renumber(e, by) for e in q.get("evidence", [])]))
    out["sample_id"] = f'{first["sample_id"]}+{second["sample_id"]}'
    for k in ("event_summary", "observation", "session_summary"):
        out.pop(k, None)
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: locomo-merge.py LOCOMO.json > MERGED.json")
    path = sys.argv[1]
    try:
        with open(path) as f:
            convs = json.load(f)
    except OSError as e:
        sys.exit(f"{path}: {e.strerror}; give the path of a LoCoMo file such as locomo10.json")
    except json.JSONDecodeError as e:
        sys.exit(f"{path}: not JSON (line {e.lineno}, column {e.colno}: {e.msg}); give a LoCoMo file such as locomo10.json")
    if not isinstance(convs, list) or len(convs) < 2:
        sys.exit(f"{path}: want a JSON list of two or more LoCoMo conversations")
    for i, c in enumerate(convs):
        if not isinstance(c, dict) or not isinstance(c.get("conversation"), dict) or "qa" not in c or "sample_id" not in c:
            sys.exit(f"{path}: conversation {i} lacks its sample_id, conversation or qa; is this a LoCoMo file?")
        if sessions(c["conversation"]) == 0:
            sys.exit(f"{path}: conversation {c['sample_id']} has no session_N turns")
    json.dump([merge(c, convs[(i + 1) % len(convs)]) for i, c in enumerate(convs)], sys.stdout)


if __name__ == "__main__":
    main()
