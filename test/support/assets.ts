// Uploads of the media library through POST /assets, as a client sends them.
import type { Admin } from './client.js';

/** POSTs one file as multipart/form-data with the admin's token; the status and the JSON answer. */
export async function upload(
  admin: Admin,
  bytes: Buffer,
  filename: string,
  parts: Record<string, string> = {},
): Promise<{ status: number; body: any }> {
  const form = new FormData();
  for (const [name, value] of Object.entries(parts)) form.append(name, value);
  form.append('file', new Blob([new Uint8Array(bytes)]), filename);
  const response = await fetch(`${admin.server.url}/assets`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin.token}`, 'x-workspace-id': admin.workspaceId },
    body: form,
  });
  return { status: response.status, body: await response.json() };
}
