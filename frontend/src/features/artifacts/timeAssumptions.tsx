import type { ReactNode } from "react";
import type { Artifact } from "../../api/types";

export interface TimeAssumptionNote {
  /** The parser's fact, e.g. `app_log.date_assumed`. */
  key: string;
  /** The note under the file in the artifacts table. */
  text: ReactNode;
  /** The same in a few words, for the upload outcome. */
  short: string;
}

const ISO_DATE = /\d{4}-\d{2}-\d{2}/;

/**
 * What the parser had to assume about a file's times (the API's `time_assumptions`), worded
 * for a reader: those times are a guess, and the note says what would set them right.
 */
export function timeAssumptionNotes(artifact: Artifact): TimeAssumptionNote[] {
  const shifted = artifact.clock_offset_s ? ", then shifted by its clock offset" : "";
  return (artifact.time_assumptions ?? []).map(({ key, value }) => {
    if (key === "app_log.date_assumed") {
      // The value is the date alone; an artifact parsed before it was may hold a sentence.
      const date = ISO_DATE.exec(value)?.[0] ?? value;
      return {
        key,
        text: (
          <>
            These log lines carry a time of day but no date: they were put on <span className="nowrap">{date}</span>,
            the upload's date{shifted}. If they were written on another day, shift them with a clock offset, or upload
            the log again with its dates.
          </>
        ),
        short: `no date on the log lines: put on ${date}`,
      };
    }
    return {
      key,
      text: `The parser had to assume part of this file's times (${key}: ${value})${shifted}. If they are off, shift them with a clock offset.`,
      short: `times partly assumed (${key})`,
    };
  });
}
