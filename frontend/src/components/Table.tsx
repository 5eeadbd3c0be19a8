import type { ReactNode } from "react";

export type Column = string | { name: string; numeric: true };

/**
 * The app's data tables: one header row (numeric columns right-aligned), then a last, unnamed
 * column for each row's buttons; the table scrolls sideways on narrow screens. The rows are the
 * children.
 */
export function Table({
  className,
  caption,
  columns,
  children,
}: {
  className: string;
  /** Read by screen readers only. */
  caption?: string;
  columns: Column[];
  children: ReactNode;
}) {
  return (
    <div className="table-scroll">
      <table className={className}>
        {caption && <caption className="visually-hidden">{caption}</caption>}
        <thead>
          <tr>
            {columns.map((column) =>
              typeof column === "string" ? (
                <th key={column} scope="col">
                  {column}
                </th>
              ) : (
                <th key={column.name} scope="col" className="num">
                  {column.name}
                </th>
              ),
            )}
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
