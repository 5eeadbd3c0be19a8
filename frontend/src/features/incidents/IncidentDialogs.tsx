/** The edit and delete dialogs of one incident (the incident list and the incident page). */
import { useDeleteIncident, useUpdateIncident } from "../../api/queries";
import type { Incident } from "../../api/types";
import { ConfirmDialog } from "../../components/Modal";
import { ErrorMessage } from "../../components/States";
import { IncidentFormDialog } from "./IncidentForm";

export function EditIncidentDialog({ incident, onClose }: { incident: Incident; onClose: () => void }) {
  const update = useUpdateIncident(incident.id);
  return (
    <IncidentFormDialog
      incident={incident}
      pending={update.isPending}
      error={update.error}
      onClose={onClose}
      onSubmit={(values) => update.mutate(values, { onSuccess: onClose })}
    />
  );
}

export function DeleteIncidentDialog({
  incident,
  onClose,
  onDeleted,
}: {
  incident: Incident;
  onClose: () => void;
  onDeleted: () => void;
}) {
  const remove = useDeleteIncident();
  return (
    <ConfirmDialog
      title="Delete incident"
      message={
        <p>
          Delete “{incident.title}” with its {incident.artifact_count === 1 ? "1 artifact" : `${incident.artifact_count} artifacts`}, findings, notes and share links?
          This cannot be undone.
        </p>
      }
      confirmLabel="Delete incident"
      pending={remove.isPending}
      error={remove.isError ? <ErrorMessage error={remove.error} /> : undefined}
      onCancel={onClose}
      onConfirm={() => remove.mutate(incident.id, { onSuccess: onDeleted })}
    />
  );
}
