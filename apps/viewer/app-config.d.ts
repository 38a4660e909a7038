// What app-config.js (a plain browser script) adds to or reads from the viewer page's globals.
interface Window {
  /** OHIF's runtime configuration, set by app-config.js. */
  config: unknown;
  /** OHIF's services, once the viewer has started. */
  services?: { hangingProtocolService?: unknown; [name: string]: unknown };
}
interface XMLHttpRequest {
  /** Whether this request goes to our DICOMweb endpoint (and so carries the viewer credential). */
  __miDicomweb?: boolean;
}
