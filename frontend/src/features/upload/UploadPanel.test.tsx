import { describe, expect, it } from "vitest";
import type { ArtifactStatus } from "../../api/types";
import { artifact } from "../../test/fixtures";
import { uploadOutcome } from "./UploadPanel";

// An upload is answered at once with its file `pending`; the row then follows the polled list.
const bundle = artifact({ id: "b", kind: "unknown", filename: "web.tar.gz", status: "pending", parsed_at_ms: null });
const answer = { artifacts: [bundle], created: [true] };
const unpacked = { ...bundle, kind: "bundle", status: "parsed" as const, parsed_at_ms: 5 };
const member = (id: string, status: ArtifactStatus, parent = "b") =>
  artifact({ id, parent_id: parent, filename: `web/${id}`, status });

describe("an upload's outcome", () => {
  it("shows the answer until the list has the file, then the list's status", () => {
    expect(uploadOutcome(answer, undefined)).toMatchObject({ files: [{ artifact: { status: "pending" } }], queued: true });
    expect(uploadOutcome(answer, [artifact({ id: "other" })]).queued).toBe(true);
    const parsing = uploadOutcome(answer, [{ ...bundle, status: "parsing" }]);
    expect(parsing.files[0]!.artifact.status).toBe("parsing");
    expect(parsing.queued).toBe(true);
  });

  it("follows a bundle's members, nested ones too, until every one is done", () => {
    const list = [unpacked, member("nested.zip", "parsed"), member("ss.txt", "parsing"), member("deep.txt", "pending", "nested.zip"), artifact({ id: "unrelated", status: "pending" })];
    const outcome = uploadOutcome(answer, list);
    expect(outcome.files.map((file) => [file.artifact.kind, file.artifact.status, file.created])).toEqual([["bundle", "parsed", true]]);
    expect(outcome.members.map((m) => m.id).sort()).toEqual(["deep.txt", "nested.zip", "ss.txt"]);
    expect(outcome.queued).toBe(true);

    const done = uploadOutcome(answer, [unpacked, member("nested.zip", "parsed"), member("ss.txt", "partial"), member("deep.txt", "failed", "nested.zip"), artifact({ id: "unrelated", status: "pending" })]);
    expect(done.members.map((m) => m.status).sort()).toEqual(["failed", "parsed", "partial"]);
    expect(done.queued).toBe(false);
  });

  it("keeps saying when the bytes were already in the incident", () => {
    const again = uploadOutcome({ artifacts: [unpacked, member("ss.txt", "parsed")], created: [false, false] }, [unpacked]);
    expect(again.files.map((file) => file.created)).toEqual([false]);
    expect(again.members.map((m) => m.id)).toEqual(["ss.txt"]);
    expect(again.queued).toBe(false);
  });
});
