/**
 * One file's upload through XMLHttpRequest (fetch reports no upload progress). The File object
 * is the multipart part as is, so the browser streams it from disk: nothing is read into memory.
 */
import { ApiError, csrfToken, errorFromBody, reportUnauthorized } from "../../api/client";
import type { paths } from "../../api/schema";

/** The upload route, typed from the OpenAPI document like every other call (openapi-fetch cannot report progress). */
type Upload = paths["/api/incidents/{incident_id}/artifacts"]["post"];
type UploadForm = Upload["requestBody"]["content"]["multipart/form-data"];
type UploadResult = Upload["responses"][202]["content"]["application/json"];
/** The form's option fields (all but the files), as the text the form sends. */
export type UploadFields = { [K in Exclude<keyof UploadForm, "files">]?: string };

export function uploadUrl(incidentId: string): string {
  const template: keyof paths = "/api/incidents/{incident_id}/artifacts";
  return template.replace("{incident_id}", encodeURIComponent(incidentId));
}

export interface SendOptions {
  incidentId: string;
  file: File;
  fields: UploadFields;
  onProgress: (loaded: number, total: number) => void;
  onSent: () => void;
}

export interface Sending {
  promise: Promise<UploadResult>;
  abort: () => void;
}

export function sendFile({ incidentId, file, fields, onProgress, onSent }: SendOptions): Sending {
  const xhr = new XMLHttpRequest();
  const url = uploadUrl(incidentId);
  const promise = new Promise<UploadResult>((resolve, reject) => {
    const form = new FormData();
    for (const [key, value] of Object.entries(fields)) {
      if (value) form.append(key, value);
    }
    form.append("files", file, file.name);

    xhr.open("POST", url);
    xhr.withCredentials = true;
    xhr.responseType = "text";
    const token = csrfToken();
    if (token) xhr.setRequestHeader("X-CSRF-Token", token);
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(event.loaded, event.total);
    };
    xhr.upload.onload = () => onSent();
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        try {
          resolve(JSON.parse(xhr.responseText) as UploadResult);
        } catch {
          reject(new ApiError(xhr.status, "bad_response", "The server's answer could not be read."));
        }
        return;
      }
      const error = errorFromBody(xhr.status, xhr.statusText, xhr.responseText);
      reportUnauthorized(url, error);
      reject(error);
    };
    xhr.onerror = () => reject(new ApiError(0, "network_error", "The connection failed during the upload."));
    xhr.onabort = () => reject(new ApiError(0, "aborted", "Cancelled."));
    xhr.send(form);
  });
  return { promise, abort: () => xhr.abort() };
}
