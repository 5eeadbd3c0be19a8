/** Names for the generated API shapes (schema.d.ts) the app uses. */
import type { Schemas } from "./client";

export type Incident = Schemas["IncidentRead"];
export type IncidentPage = Schemas["IncidentPage"];
export type IncidentCreate = Schemas["IncidentCreate"];
export type IncidentUpdate = Schemas["IncidentUpdate"];
export type Artifact = Schemas["ArtifactRead"];
export type ArtifactStatus = Artifact["status"];
export type UploadResult = Schemas["UploadResult"];
export type Checklist = Schemas["Checklist"];
export type Finding = Schemas["FindingRead"];
export type Evidence = Schemas["EvidenceRead"];
export type Symptom = Schemas["SymptomRead"];
export type Verdict = Finding["verdict"];
export type Annotation = Schemas["AnnotationRead"];
export type AnnotationCreate = Schemas["AnnotationCreate"];
export type Postmortem = Schemas["PostmortemRead"];
export type PostmortemSection = Schemas["SectionRead"];
export type SectionKey = PostmortemSection["key"];
export type PostmortemStatus = Postmortem["status"];
export type Revision = Schemas["RevisionRead"];

export const POSTMORTEM_STATUS_LABELS: Record<PostmortemStatus, string> = {
  draft: "Draft",
  in_review: "In review",
  published: "Published",
};

export type User = Schemas["UserBrief"];
export type Me = Schemas["Me"];
export type TokenRead = Schemas["TokenRead"];
export type TokenScope = TokenRead["scope"];
export type TokenCreated = Schemas["TokenCreated"];
export type ShareRead = Schemas["ShareRead"];
export type ShareCreated = Schemas["ShareCreated"];
export type SharedIncident = Schemas["SharedIncident"];
export type ShareView = Schemas["ShareView"];

export type ActionItem = Schemas["ActionItemRead"];
export type ActionItemCreate = Schemas["ActionItemCreate"];
export type ActionItemUpdate = Schemas["ActionItemUpdate"];
export type ActionItemPage = Schemas["ActionItemPage"];
export type ActionStatus = ActionItem["status"];

export type Comparison = Schemas["Comparison"];
export type CompareRow = Schemas["CompareRow"];
export type CompareSide = Schemas["CompareSide"];

export const VERDICTS: readonly Verdict[] = ["confirmed", "likely", "insufficient_data", "ruled_out"];

export const VERDICT_LABELS: Record<Verdict, string> = {
  confirmed: "Confirmed",
  likely: "Likely",
  insufficient_data: "Insufficient data",
  ruled_out: "Ruled out",
};

/** Words for an artifact's parse status; the two queued ones say what is happening. */
export const ARTIFACT_STATUS_LABELS: Record<ArtifactStatus, string> = {
  pending: "queued",
  parsing: "parsing…",
  parsed: "parsed",
  partial: "partial",
  failed: "failed",
};

/** Still in the parse queue: waiting for a parse worker, or in the hands of one. */
export function isQueued(artifact: { status: ArtifactStatus }): boolean {
  return artifact.status === "pending" || artifact.status === "parsing";
}

export const ACTION_STATUSES: readonly ActionStatus[] = ["open", "in_progress", "done", "wont_do"];

export const ACTION_STATUS_LABELS: Record<ActionStatus, string> = {
  open: "Open",
  in_progress: "In progress",
  done: "Done",
  wont_do: "Won't do",
};
