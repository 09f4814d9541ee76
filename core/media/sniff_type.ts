/**
 * `file-type`'s sniffing, loaded on first use: the package (and its dependencies) costs several
 * MB of memory for every process, though only image and video requests with media sniff bytes.
 */

let loading: Promise<typeof import("file-type")> | undefined;

/** The detected type of `head` (the file's first bytes), or undefined when it is not known. */
export async function sniffFileType(
  head: Uint8Array,
): Promise<{ ext: string; mime: string } | undefined> {
  const { fileTypeFromBuffer } = await (loading ??= import("file-type"));
  return await fileTypeFromBuffer(head).catch(() => undefined);
}
