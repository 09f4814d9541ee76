/**
 * External programs some tests need (ffprobe for the media tests, Chromium for the console's
 * browser tests; wrk for the bench later). `deno task test` passes on a machine with only Deno: a test that needs a missing
 * tool is registered as ignored, and its file prints one line saying how many it ignored, why,
 * and how to install the tool. Nothing passes without having run. With GATEWAY_TEST_STRICT=1
 * (.ci/run sets it after installing the tools) a missing tool fails those tests instead.
 */

/** GATEWAY_TEST_STRICT=1: a missing tool is a failure, not an ignored test. */
export const STRICT = Deno.env.get("GATEWAY_TEST_STRICT") === "1";

export interface ToolSpec {
  name: string;
  /** The environment variable that names the binary; else `defaultPath`, else `name` on PATH. */
  envVar: string;
  defaultPath?: string;
  versionArgs: string[];
  /** How to get it, for the line a run prints when it is missing. */
  install: string;
}

export const FFPROBE_SPEC: ToolSpec = {
  name: "ffprobe",
  envVar: "FFPROBE_PATH",
  versionArgs: ["-version"],
  install: "apt-get install ffmpeg, or bash .ci/media-tools then FFPROBE_PATH=<its ffprobe>",
};

export interface ExternalTool {
  name: string;
  /** The binary, when found. */
  path?: string;
  /** The first line of its version output, when found. */
  version?: string;
  /** Deno.test that gets the tool's path; ignored (or failing, when strict) without the tool. */
  test(
    name: string,
    fn: (path: string) => void | Promise<void>,
    options?: Omit<Deno.TestDefinition, "name" | "fn" | "ignore">,
  ): void;
  /** Prints the line for the tests ignored so far; call it once the file's tests are registered. */
  reportIgnored(file: string): void;
}

async function versionOf(path: string, args: string[]): Promise<string | undefined> {
  try {
    const output = await new Deno.Command(path, {
      args,
      stdin: "null",
      stdout: "piped",
      stderr: "null",
    }).output();
    return output.success ? new TextDecoder().decode(output.stdout).split("\n")[0] : undefined;
  } catch {
    return undefined;
  }
}

/** `name` as a file in one of PATH's directories, else `name` itself. */
function onPath(name: string): string {
  if (name.includes("/")) return name;
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    try {
      if (dir && Deno.statSync(`${dir}/${name}`).isFile) return `${dir}/${name}`;
    } catch {
      // not here
    }
  }
  return name;
}

/** Looks the tool up: its environment variable, else its name on PATH; it must answer. */
export async function findTool(spec: ToolSpec): Promise<ExternalTool> {
  const candidate = onPath(Deno.env.get(spec.envVar) || spec.defaultPath || spec.name);
  const version = await versionOf(candidate, spec.versionArgs);
  const path = version ? candidate : undefined;
  const ignored: string[] = [];
  return {
    name: spec.name,
    path,
    version,
    test(name, fn, options = {}) {
      if (path) {
        Deno.test({ ...options, name, fn: () => fn(path) });
        return;
      }
      if (STRICT) {
        Deno.test({
          ...options,
          name,
          fn: () => {
            throw new Error(
              `${spec.name} not found and GATEWAY_TEST_STRICT=1: install it (${spec.install})`,
            );
          },
        });
        return;
      }
      ignored.push(name);
      Deno.test({ ...options, name, ignore: true, fn: () => {} });
    },
    reportIgnored(file) {
      if (!ignored.length) return;
      console.log(
        `${ignored.length} ${spec.name} test${
          ignored.length === 1 ? "" : "s"
        } ignored in ${file}: ` +
          `${spec.name} not found (${spec.install})`,
      );
    },
  };
}

let ffprobe: Promise<ExternalTool> | undefined;

/** ffprobe, looked up once per test module. */
export function findFfprobe(): Promise<ExternalTool> {
  return ffprobe ??= findTool(FFPROBE_SPEC);
}

export const CHROMIUM_SPEC: ToolSpec = {
  name: "chromium",
  envVar: "CHROME_PATH",
  defaultPath: "/usr/bin/chromium",
  versionArgs: ["--version"],
  install: "apt-get install chromium, or bash .ci/browser-tools then CHROME_PATH=<its chromium>",
};

let chromium: Promise<ExternalTool> | undefined;

/** Chromium for the browser tests: CHROME_PATH, else /usr/bin/chromium, looked up once. */
export function findChromium(): Promise<ExternalTool> {
  return chromium ??= findTool(CHROMIUM_SPEC);
}
