/**
 * Response shapes the app uses. Generated ones come from schema.d.ts; the auth and share shapes
 * are written from the contract (notes/contract.md) until the backend's OpenAPI carries them.
 */
import type { Schemas } from "./client";

export type Incident = Schemas["IncidentRead"];
export type IncidentPage = Schemas["IncidentPage"];
export type IncidentCreate = Schemas["IncidentCreate"];
export type IncidentUpdate = Schemas["IncidentUpdate"];
export type Artifact = Schemas["ArtifactRead"];
export type UploadResult = Schemas["UploadResult"];
export type Checklist = Schemas["Checklist"];
export type Finding = Schemas["FindingRead"];
export type Evidence = Schemas["EvidenceRead"];
export type Verdict = Finding["verdict"];
export type Annotation = Schemas["AnnotationRead"];
export type AnnotationCreate = Schemas["AnnotationCreate"];

export interface User {
  id: number | string;
  username: string;
  is_admin: boolean;
  has_password: boolean;
}

export interface Me {
  user: User;
  csrf_token: string;
}

export type TokenScope = "ingest" | "read-write";

export interface TokenRead {
  id: number | string;
  name: string;
  scope: TokenScope;
  incident_id: string | null;
  created_at_ms: number;
  last_used_at_ms: number | null;
  revoked: boolean;
  prefix: string;
}

export type TokenCreated = TokenRead & { token: string };

export interface ShareRead {
  id: number | string;
  label: string;
  created_at_ms: number;
  created_by: string;
  expires_at_ms: number | null;
  allow_raw: boolean;
  revoked: boolean;
  expired: boolean;
  prefix: string;
}

export type ShareCreated = ShareRead & { token: string; url: string };

export interface SharedIncident {
  incident: Incident;
  allow_raw: boolean;
}

export const VERDICTS: readonly Verdict[] = ["confirmed", "likely", "insufficient_data", "ruled_out"];

export const VERDICT_LABELS: Record<Verdict, string> = {
  confirmed: "Confirmed",
  likely: "Likely",
  insufficient_data: "Insufficient data",
  ruled_out: "Ruled out",
};
