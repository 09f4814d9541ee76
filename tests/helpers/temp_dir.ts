/** A temporary directory that `await using` removes with everything in it. */

export interface TempDir extends AsyncDisposable {
  path: string;
}

export async function tempDir(options?: Deno.MakeTempOptions): Promise<TempDir> {
  const path = await Deno.makeTempDir(options);
  return {
    path,
    async [Symbol.asyncDispose]() {
      await Deno.remove(path, { recursive: true }).catch((error) => {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
      });
    },
  };
}
