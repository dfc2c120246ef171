/**
 * The fields of a request's one log line (`request`): its method, its path (the query string may hold anything a
 * client sent, so it is not logged), its status and its duration to 0.01 ms.
 */
export function requestLogFields(method: string | undefined, url: string, status: number, durationMs: number) {
  const queryStart = url.indexOf('?');
  return {
    method,
    url: queryStart === -1 ? url : url.slice(0, queryStart),
    status,
    durationMs: Math.round(durationMs * 100) / 100,
  };
}
