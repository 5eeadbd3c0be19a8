import json, sys
d = json.load(sys.stdin)
w = int(sys.argv[1])
for f in d["findings"]:
    if f["verdict"] != "insufficient_data":
        print("%-30s %-10s %s" % (f["id"], f["verdict"], f["summary"][:w]))
