import { Link, useParams } from "react-router";
import { incidentBase, useIncident, useMe, usePostmortem } from "../api/queries";
import { ErrorBoundary } from "../components/ErrorBoundary";
import { ErrorMessage, Loading } from "../components/States";
import { PostmortemEditor } from "../features/postmortem/Postmortem";

/** `/incidents/{id}/postmortem`: the incident's postmortem, drafted by Rootline and edited by the team. */
export function PostmortemPage() {
  const { id = "" } = useParams();
  const apiBase = incidentBase(id);
  const incident = useIncident(apiBase);
  const postmortem = usePostmortem(apiBase, { refetchMs: 15_000 });
  const me = useMe();
  const back = <p className="breadcrumb"><Link to={`/incidents/${encodeURIComponent(id)}`}>← The incident</Link></p>;
  if (incident.isPending || postmortem.isPending)
    return <main className="page">{back}<Loading label="Loading the postmortem…" /></main>;
  if (incident.isError || postmortem.isError)
    return (
      <main className="page">
        {back}
        <ErrorMessage error={incident.error ?? postmortem.error} title="The postmortem could not be loaded" />
      </main>
    );
  return (
    <main className="page postmortem-page">
      {back}
      <h1>Postmortem: {incident.data.title}</h1>
      <ErrorBoundary label="The postmortem">
        <PostmortemEditor
          apiBase={apiBase}
          postmortem={postmortem.data}
          timezone={incident.data.timezone}
          me={me.data?.user.username}
        />
      </ErrorBoundary>
    </main>
  );
}
