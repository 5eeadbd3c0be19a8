import { describe, expect, it } from "vitest";
import { guessHost, hostFromFilename, hostFromText } from "./hostGuess";

describe("host from the file name", () => {
  it("reads the collector's bundle names", () => {
    expect(hostFromFilename("rootline-web-01-20261121T075013.tar.gz")).toBe("web-01");
    expect(hostFromFilename("rootline-db.example.com-20261121T075013Z.zip")).toBe("db.example.com");
    expect(hostFromFilename("C:\\tmp\\rootline-client-20261121T075013.tgz")).toBe("client");
  });

  it("does not guess from other names", () => {
    expect(hostFromFilename("gc.log")).toBeNull();
    expect(hostFromFilename("rootline-web-01.tar.gz")).toBeNull();
    expect(hostFromFilename("rootline-<img>-20261121T075013.tar.gz")).toBeNull();
  });
});

describe("host from the content", () => {
  it("reads nmon, sysctl and sysstat headers", () => {
    expect(hostFromText("AAA,progname,nmon\nAAA,host,appsrv7\nAAA,user,root\n")).toBe("appsrv7");
    expect(hostFromText("kernel.domainname = (none)\nkernel.hostname = edge-3\n")).toBe("edge-3");
    expect(hostFromText("Linux 5.15.0-91-generic (cache-2) \t11/21/2026 \t_x86_64_\t(8 CPU)\n")).toBe("cache-2");
  });

  it("ignores binary and text with no host", () => {
    expect(hostFromText("AAA,host,x\u0000")).toBeNull();
    expect(hostFromText("State Recv-Q Send-Q\nESTAB 0 0 10.0.0.1:80 10.0.0.2:5000\n")).toBeNull();
    expect(hostFromText("AAA,host,<script>\n")).toBeNull();
  });

  it("guesses from a File, reading only its start", async () => {
    const nmon = new File(["AAA,host,lab-9\n" + "x".repeat(100_000)], "capture.nmon");
    expect(await guessHost(nmon)).toBe("lab-9");
    const late = new File(["x".repeat(70_000) + "\nAAA,host,too-late\n"], "capture.nmon");
    expect(await guessHost(late)).toBeNull();
    const bundle = new File(["AAA,host,inside\n"], "upload.tar.gz");
    expect(await guessHost(bundle)).toBeNull();
  });
});
