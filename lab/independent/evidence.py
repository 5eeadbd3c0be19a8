import json, sys
d = json.load(sys.stdin)
ids = sys.argv[1].split(",")
for f in d["findings"]:
    if f["id"] in ids:
        print("##", f["id"], f["verdict"])
        for e in f["evidence"]:
            print("  ", "MET" if e.get("met") else "   ", e.get("observed"), "|", e["summary"][:300])
