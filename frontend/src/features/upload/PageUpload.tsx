/**
 * Uploading from anywhere on an incident page: a drop anywhere is an upload (the browser never
 * leaves the app to show the dropped file), and an Upload button in the header picks files.
 * Both stage the files in the page's upload panel and bring it into view.
 */
import { useEffect, useRef, useState } from "react";

function carriesFiles(event: DragEvent): boolean {
  return Array.from(event.dataTransfer?.types ?? []).includes("Files");
}

/**
 * Listens on the window: files dragged over any part of the page may be dropped (dragover
 * cancelled), a drop stages them through `onFiles`. A drop a zone already took (its handler
 * called preventDefault) is left to it. Returns whether files are being dragged over the page.
 */
export function usePageDrop(onFiles: (files: File[]) => void, enabled = true): boolean {
  const [dragging, setDragging] = useState(false);
  const onFilesRef = useRef(onFiles);
  onFilesRef.current = onFiles;
  useEffect(() => {
    if (!enabled) return;
    // dragenter/dragleave fire for every element crossed: count them to know when it left the window.
    let depth = 0;
    const enter = (event: DragEvent) => {
      if (!carriesFiles(event)) return;
      depth += 1;
      setDragging(true);
    };
    const leave = (event: DragEvent) => {
      if (!carriesFiles(event)) return;
      depth = Math.max(0, depth - 1);
      if (depth === 0) setDragging(false);
    };
    const over = (event: DragEvent) => {
      if (!carriesFiles(event)) return;
      // Without this the drop is the browser's: it would open the file in place of the app.
      event.preventDefault();
      if (event.dataTransfer) event.dataTransfer.dropEffect = "copy";
    };
    const drop = (event: DragEvent) => {
      depth = 0;
      setDragging(false);
      if (!carriesFiles(event)) return;
      const taken = event.defaultPrevented;
      event.preventDefault();
      if (!taken && event.dataTransfer && event.dataTransfer.files.length > 0) onFilesRef.current(Array.from(event.dataTransfer.files));
    };
    window.addEventListener("dragenter", enter);
    window.addEventListener("dragleave", leave);
    window.addEventListener("dragover", over);
    window.addEventListener("drop", drop);
    return () => {
      window.removeEventListener("dragenter", enter);
      window.removeEventListener("dragleave", leave);
      window.removeEventListener("dragover", over);
      window.removeEventListener("drop", drop);
    };
  }, [enabled]);
  return dragging;
}

export function PageDropOverlay() {
  return (
    <div className="page-drop-target" data-testid="page-drop-target" aria-hidden="true">
      <p>Drop the files to upload them to this incident</p>
    </div>
  );
}

/** The header's Upload button: picks files and hands them over. */
export function UploadButton({ onFiles }: { onFiles: (files: File[]) => void }) {
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <button type="button" className="button-primary" onClick={() => input.current?.click()}>
        Upload…
      </button>
      <input
        ref={input}
        type="file"
        multiple
        className="visually-hidden"
        tabIndex={-1}
        aria-label="Upload files to this incident"
        onChange={(event) => {
          if (event.target.files) onFiles(Array.from(event.target.files));
          event.target.value = "";
        }}
      />
    </>
  );
}
