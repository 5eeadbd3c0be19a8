import { memo } from "react";
import { timeZones } from "../lib/time";

/**
 * The `<datalist>` of every IANA zone, for timezone inputs (`list={id}`). Memoised: it is a few
 * hundred options, and the upload panel re-renders on every progress event.
 */
export const TimeZoneList = memo(function TimeZoneList({ id }: { id: string }) {
  return (
    <datalist id={id}>
      {timeZones().map((zone) => (
        <option key={zone} value={zone} />
      ))}
    </datalist>
  );
});
