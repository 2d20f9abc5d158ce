"""A memo store as voicememo writes it (schema 1, as a store made before the journal is, with each memo's loudness, as
voicememo keeps it once measured: the listings compare.sh times list, not measure), for compare.sh:
make-store.py STORE AUDIO COUNT. STORE is created; every memo's file is a hard link to AUDIO (a .wav or .opus),
so that every entry is kept when the index is reconciled with the directory."""
import datetime, json, os, random, sys

store, audio, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
extension = os.path.splitext(audio)[1][1:]
random.seed(7)
os.makedirs(store, mode=0o700)
size = os.path.getsize(audio)
start = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
memos = []
for n in range(count):
    memo_id = "%012x" % random.getrandbits(48)
    os.link(audio, os.path.join(store, memo_id + "." + extension))
    created = start + datetime.timedelta(minutes=37 * n)
    memos.append({
        "averageDBFS": [-9.03], "channels": 1, "createdAt": created.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "loudness": {"integrated": -9.7, "range": 0.0, "truePeak": -6.0},
        "duration": 1.0, "file": memo_id + "." + extension, "format": extension, "id": memo_id, "peakDBFS": [-6.02],
        "sampleRate": 48000.0, "sizeBytes": size, "state": "complete",
        "title": "Memo %d: %s" % (n, random.choice(["standup", "dentist", "idea for the garden", "lecture notes"])),
    })
index = os.path.join(store, "memos.json")
with open(index, "w") as file:
    json.dump({"memos": memos, "schemaVersion": 1}, file, indent=2, sort_keys=True)
os.chmod(index, 0o600)
