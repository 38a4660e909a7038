import { SPA_PATHS } from '@mi/contracts/spa-routes';

/**
 * Every client route of the SPA (declared in packages/contracts/src/spa-routes.ts, so the server
 * answers 404 for any other path). The router declares its routes with these, and every link and
 * navigation builds its target with them; the helpers below fill in parameters and query strings.
 */
export const paths = SPA_PATHS;

/**
 * `path` with a query string: URLSearchParams, a record (empty values left out) or a search
 * string with or without its '?'. No query string when there is nothing to add.
 */
export function withQuery(
  path: string,
  query: URLSearchParams | Record<string, string | null | undefined> | string,
): string {
  let search: string;
  if (typeof query === 'string') {
    search = query.startsWith('?') ? query.slice(1) : query;
  } else if (query instanceof URLSearchParams) {
    search = query.toString();
  } else {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) if (value) params.set(key, value);
    search = params.toString();
  }
  return search ? `${path}?${search}` : path;
}

/** /help/{id}: a help article. */
export function helpArticlePath(id: string): string {
  return paths.helpArticle.replace(':id', encodeURIComponent(id));
}

/** /studies/transfer/{studyId}: prepares a study and opens it in the viewer. */
export function studyTransferPath(studyId: string): string {
  return paths.studyTransfer.replace(':studyId', encodeURIComponent(studyId));
}

/** /upload?backUrl=…: the upload page with a Go Back button to `backUrl` (an app path, kept readable). */
export function uploadPath(backUrl: string): string {
  return `${paths.upload}?backUrl=${encodeURIComponent(backUrl).replace(/%2F/g, '/')}`;
}

/** The 'Get Analysis' target: the service catalogue, set to order an analysis of one study. */
export function getAnalysisPath(study: { studyId: string; studyName: string; patientName: string }): string {
  const query = [
    'action=getanalysis',
    `studyId=${encodeURIComponent(study.studyId)}`,
    `studyName=${encodeURIComponent(study.studyName)}`,
    `patientName=${encodeURIComponent(study.patientName)}`,
  ].join('&');
  return `${paths.servicesAvailable}?${query}`;
}
