/**
 * Guess the host an artifact came from, so the upload form can pre-fill it (always editable).
 * From the name the collector gives its bundles (`rootline-<host>-<stamp>.tar.gz`), then from the
 * first few KB of text files: nmon `AAA,host,NAME`, sysctl `kernel.hostname = NAME`, a sysstat
 * header `Linux 5.15.0 (NAME) ...`, or a `hostname: NAME` line.
 */

/** How much of each file is read for the guess (the rest is never read into memory). */
export const SNIFF_BYTES = 65536;

const BUNDLE_NAME = /^rootline-(.+?)-(\d{8}T\d{4,6}Z?|\d{8}-\d{4,6}|\d{10,14})\.(?:tar\.gz|tgz|tar|zip)$/i;
const ARCHIVE = /\.(?:tar\.gz|tgz|tar|zip|gz|bz2|xz|zst|7z)$/i;
const HOST = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,252}$/;

function plausibleHost(name: string | undefined): string | null {
  const trimmed = name?.trim();
  if (!trimmed || !HOST.test(trimmed)) return null;
  if (trimmed === "localhost" || trimmed === "(none)") return null;
  return trimmed;
}

export function hostFromFilename(filename: string): string | null {
  const base = filename.split(/[\\/]/).pop() ?? filename;
  const match = BUNDLE_NAME.exec(base);
  return match ? plausibleHost(match[1]) : null;
}

const CONTENT_RULES: RegExp[] = [
  /^AAA,host,([^,\r\n]+)\s*$/m, // nmon
  /^kernel\.hostname\s*=\s*(\S+)\s*$/m, // sysctl -a
  /^Linux \S+ \(([^)\s]+)\)/m, // sar / iostat / mpstat header
  /^(?:#\s*)?host(?:name)?\s*[:=]\s*(\S+)\s*$/im, // collector headers, plain notes
];

export function hostFromText(text: string): string | null {
  if (text.includes("\u0000")) return null; // binary
  for (const rule of CONTENT_RULES) {
    const host = plausibleHost(rule.exec(text)?.[1]);
    if (host) return host;
  }
  return null;
}

/** A blob's text: `Blob.text()` where there is one (every current browser), else FileReader. */
function readText(blob: Blob): Promise<string> {
  if (typeof blob.text === "function") return blob.text();
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result as string);
    reader.onerror = () => reject(reader.error ?? new Error("unreadable"));
    reader.readAsText(blob);
  });
}

/** The guess for one picked file: its name first, then its first SNIFF_BYTES when it is text. */
export async function guessHost(file: File): Promise<string | null> {
  const fromName = hostFromFilename(file.name);
  if (fromName) return fromName;
  if (ARCHIVE.test(file.name)) return null;
  try {
    return hostFromText(await readText(file.slice(0, SNIFF_BYTES)));
  } catch {
    return null;
  }
}
