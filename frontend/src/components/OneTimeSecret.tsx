import type { ReactNode } from "react";
import { CopyButton } from "./CopyButton";

/** A secret the server shows only once (a token, a share link): what it is, the value, a copy button. */
export function OneTimeSecret({
  value,
  name,
  copyLabel,
  children,
}: {
  value: string;
  /** Accessible name of the read-only field. */
  name: string;
  copyLabel: string;
  /** The warning above the value. */
  children: ReactNode;
}) {
  return (
    <div className="secret" role="status">
      <p>{children}</p>
      <div className="command">
        <input className="mono" readOnly value={value} aria-label={name} onFocus={(event) => event.target.select()} />
        <CopyButton text={value} label={copyLabel} />
      </div>
    </div>
  );
}
