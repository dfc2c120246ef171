// Requests sent from a chosen loopback address (127.0.0.2, 127.0.0.3, …): on Linux the whole 127.0.0.0/8 reaches
// the server, which then sees each as a different client. Lets one host test limits kept per client address.
import { request as httpRequest } from 'node:http';

export interface AddressedResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  text: string;
}

/** POSTs `body` as JSON to `url` from `localAddress`, on a connection of its own. */
export function postJsonFrom(localAddress: string, url: string, body: unknown): Promise<AddressedResponse> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      url,
      {
        method: 'POST',
        localAddress,
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      },
      (incoming) => {
        let text = '';
        incoming.setEncoding('utf8');
        incoming.on('data', (chunk: string) => (text += chunk));
        incoming.on('end', () => {
          let parsed: any;
          try {
            parsed = text === '' ? undefined : JSON.parse(text);
          } catch {
            parsed = undefined;
          }
          resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body: parsed, text });
        });
        incoming.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(payload);
  });
}
