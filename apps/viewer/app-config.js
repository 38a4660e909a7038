/* Viewer configuration served in place of OHIF's sample app-config.js.
 *
 * The study's credential arrives in the URL fragment (#grant=…), which browsers never send to a
 * server nor put in a Referer. It is read here, removed from the address bar, kept for this tab
 * only, and added as an Authorization header to this origin's DICOMweb requests. On first use it
 * is bound to this browser. The app's own session is never used here.
 */
(function () {
  'use strict';
  var STORAGE_KEY = 'mi.viewer.grant';
  var DICOMWEB = window.location.origin + '/dicomweb';

  var grant = null;
  var match = /(?:^#|&)grant=([^&]+)/.exec(window.location.hash);
  if (match) {
    grant = decodeURIComponent(match[1] || '');
    try {
      window.sessionStorage.setItem(STORAGE_KEY, grant);
    } catch {
      /* storage disabled: the credential lives for this page only */
    }
    window.history.replaceState(window.history.state, '', window.location.pathname + window.location.search);
  } else {
    try {
      grant = window.sessionStorage.getItem(STORAGE_KEY);
    } catch {
      grant = null;
    }
  }

  function showExpiredNotice() {
    var notice = document.createElement('div');
    notice.setAttribute('role', 'alert');
    notice.style.cssText =
      'position:fixed;inset:0;z-index:100000;display:flex;align-items:center;justify-content:center;padding:24px;background:#0f172a;color:#e2e8f0;font:16px sans-serif;text-align:center';
    notice.textContent =
      'This viewer link has expired, was withdrawn or was opened elsewhere. Open the study again from My Studies.';
    document.body.appendChild(notice);
  }

  // Bind the credential to this browser (the server answers with an httpOnly cookie); a copied link
  // is refused anywhere else. The viewer's code loads meanwhile, but no DICOMweb request leaves
  // before the binding is settled (see the XMLHttpRequest and fetch wrappers below).
  var originalFetch = window.fetch;
  var bindSettled = false;
  var binding = (
    grant
      ? originalFetch
          .call(window, DICOMWEB + '/session', {
            method: 'POST',
            headers: { Authorization: 'Bearer ' + grant },
            credentials: 'same-origin',
          })
          .then(
            function (res) {
              return res.status === 204;
            },
            function () {
              return false;
            },
          )
      : Promise.resolve(false)
  ).then(function (bound) {
    bindSettled = true;
    if (bound) return;
    if (document.body) showExpiredNotice();
    else document.addEventListener('DOMContentLoaded', showExpiredNotice);
  });

  function ours(url) {
    try {
      var u = new URL(url, window.location.href);
      return u.origin === window.location.origin && u.pathname.indexOf('/dicomweb/') === 0;
    } catch {
      return false;
    }
  }

  // OHIF's DICOMweb client and image loader use XMLHttpRequest; a few reads use fetch.
  var open = XMLHttpRequest.prototype.open;
  var send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.open = function (method, url) {
    this.__miDicomweb = ours(url);
    return open.apply(this, /** @type {any} */ (arguments));
  };
  XMLHttpRequest.prototype.send = function () {
    var args = /** @type {any} */ (arguments);
    if (!this.__miDicomweb) return send.apply(this, args);
    if (grant) this.setRequestHeader('Authorization', 'Bearer ' + grant);
    if (bindSettled) return send.apply(this, args);
    binding.then(send.apply.bind(send, this, args));
  };
  window.fetch = function (input, init) {
    var url = typeof input === 'string' ? input : input && /** @type {Request} */ (input).url;
    if (!url || !ours(url)) return originalFetch.call(this, input, init);
    if (grant) {
      var headers = new Headers(
        (init && init.headers) ||
          (typeof input !== 'string' && /** @type {Request} */ (input).headers) ||
          undefined,
      );
      headers.set('Authorization', 'Bearer ' + grant);
      init = Object.assign({}, init || {}, { headers: headers });
    }
    var request = originalFetch.bind(this, input, init);
    return binding.then(function () {
      return request();
    });
  };

  // Where WebGL is only emulated in software (no GPU, or one the browser refuses: SwiftShader,
  // llvmpipe), images are drawn on the CPU: that path shows the first image sooner and scrolls
  // faster there. MPR and 3D need WebGL, and cornerstone cannot switch a running viewer to it, so
  // the first layout that needs volumes reloads this tab in WebGL mode, opening that layout.
  // Without WebGL at all the CPU is the only path (cornerstone detects it, but OHIF 3.12 then sets
  // cornerstone's mode from this configuration, which would turn the fallback off).
  var WEBGL_KEY = 'mi.viewer.webgl';
  function webglRenderer() {
    try {
      var canvas = document.createElement('canvas');
      var gl = canvas.getContext('webgl2') || canvas.getContext('webgl');
      if (!gl) return null;
      var info = gl.getExtension('WEBGL_debug_renderer_info');
      var name = String(gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER));
      var lose = gl.getExtension('WEBGL_lose_context');
      if (lose) lose.loseContext();
      return name;
    } catch {
      return '';
    }
  }
  var renderer = webglRenderer();
  var webglChosen = false;
  try {
    webglChosen = window.sessionStorage.getItem(WEBGL_KEY) === '1';
  } catch {
    webglChosen = false;
  }
  var softwareWebgl =
    renderer !== null && /swiftshader|llvmpipe|softpipe|software|basic render/i.test(renderer);
  var drawOnCpu = renderer === null || (softwareWebgl && !webglChosen);

  function needsVolumes(stage) {
    return ((stage && stage.viewports) || []).some(function (v) {
      var type = v.viewportOptions && v.viewportOptions.viewportType;
      return type === 'volume' || type === 'volume3d';
    });
  }
  /** OHIF exposes its services on window once its cornerstone extension has started. */
  function reloadWithWebglForVolumes() {
    var protocols = window.services && window.services.hangingProtocolService;
    if (!protocols || !protocols.EVENTS) {
      window.setTimeout(reloadWithWebglForVolumes, 250);
      return;
    }
    protocols.subscribe(protocols.EVENTS.PROTOCOL_CHANGED, function (event) {
      if (!event || !event.protocol || !needsVolumes(event.stage)) return;
      try {
        window.sessionStorage.setItem(WEBGL_KEY, '1');
      } catch {
        return; // without storage the reload would draw on the CPU again
      }
      var url = new URL(window.location.href);
      url.searchParams.set('hangingprotocolid', event.protocol.id);
      window.location.replace(url.toString());
    });
  }
  if (drawOnCpu && renderer !== null) window.addEventListener('load', reloadWithWebglForVolumes);

  /** Calls `then` with OHIF's services once its mode has entered (at most a minute of waiting). */
  function whenViewerReady(ready, then) {
    var tries = 0;
    (function check() {
      var services = window.services;
      if (services && ready(services)) then(services);
      else if (tries++ < 240) window.setTimeout(check, 250);
    })();
  }

  /**
   * Drawn on the CPU, cornerstone keeps the camera of the old size when a viewport is resized (a side
   * panel opened or closed, the window resized or turned), and the image ends up out of view: the
   * viewport goes black. After a resize settles, the image is fitted to the new size again.
   */
  function refitImagesAfterResize(services) {
    var grid = document.querySelector('[data-cy="viewport-grid"]');
    var started = false;
    var timer = 0;
    new ResizeObserver(function () {
      if (!started) {
        started = true; // the observation made when observing starts
        return;
      }
      window.clearTimeout(timer);
      timer = window.setTimeout(function () {
        var engine = services.cornerstoneViewportService.getRenderingEngine();
        if (!engine) return;
        engine.getViewports().forEach(function (viewport) {
          if (viewport.resetCamera) viewport.resetCamera();
          viewport.render();
        });
      }, 300);
    }).observe(grid);
  }
  if (drawOnCpu && typeof ResizeObserver !== 'undefined')
    window.addEventListener('load', function () {
      whenViewerReady(function (services) {
        return !!services.cornerstoneViewportService && !!document.querySelector('[data-cy="viewport-grid"]');
      }, refitImagesAfterResize);
    });

  /**
   * On a phone OHIF opens with the series panel beside the image, which leaves the image a strip a
   * few dozen pixels wide. Below 768 px the side panels start closed; the buttons at the screen's
   * edges still open them. OHIF's layout closes its panels when the panel service announces a change
   * with these options (ViewerLayout in the pinned release); that is announced here once the mode
   * has set its panels, after a moment for the layout to take the mode's own options first.
   */
  function closeSidePanels(services) {
    window.setTimeout(function () {
      var panels = services.panelService;
      panels._broadcastEvent(panels.EVENTS.PANELS_CHANGED, {
        options: { leftPanelClosed: true, rightPanelClosed: true },
      });
    }, 300);
  }
  if (window.matchMedia && window.matchMedia('(max-width: 767px)').matches)
    window.addEventListener('load', function () {
      whenViewerReady(function (services) {
        var panels = services.panelService;
        return (
          !!panels &&
          !!panels.EVENTS &&
          typeof panels._broadcastEvent === 'function' &&
          panels.getPanels('left').length + panels.getPanels('right').length > 0
        );
      }, closeSidePanels);
    });

  /**
   * On a phone OHIF's header has more than fits: its logo, a toolbar wider than the screen centred over
   * it, undo and redo, the patient menu and the settings. Below 768 px the logo (a link to a study
   * list this viewer does not have) and undo/redo are left out, and the toolbar runs from the left edge
   * to the patient menu, scrolling sideways, so nothing overlaps and the page is no wider than the
   * screen. The selectors follow the header of the pinned release (ohif-release.mjs).
   */
  function fitHeaderToPhone() {
    var header = 'div:has(> div > [data-cy="return-to-work-list"])';
    var style = document.createElement('style');
    style.textContent =
      '@media (max-width: 767px) {' +
      header +
      ' > div:has(> [data-cy="return-to-work-list"]) { display: none; }' +
      header +
      ' > .absolute.right-0 > div:nth-child(-n + 2) { display: none; }' +
      header +
      ' > .absolute.left-1\\/2 { left: 0; right: 150px; transform: translateY(-50%);' +
      ' overflow-x: auto; overflow-y: hidden; scrollbar-width: none; }' +
      header +
      ' > .absolute.left-1\\/2 > div { justify-content: flex-start; width: max-content; }' +
      '}';
    document.head.appendChild(style);
  }
  fitHeaderToPhone();

  window.config = {
    routerBasename: null,
    extensions: [],
    modes: [],
    // No study list: the viewer only ever opens the study its credential is for.
    showStudyList: false,
    maxNumberOfWebWorkers: 2,
    showWarningMessageForCrossOrigin: false,
    useCPURendering: drawOnCpu,
    // OHIF's notice that MPR and volume rendering are unavailable: only true without WebGL.
    showCPUFallbackMessage: renderer === null,
    showLoadingIndicator: true,
    strictZSpacingForVolumeViewport: true,
    investigationalUseDialog: { option: 'never' },
    // The first-visit tour is off.
    customizationService: [{ 'ohif.tours': { $set: [] } }],
    maxNumRequests: { interaction: 100, thumbnail: 75, prefetch: 25 },
    showErrorDetails: 'production',
    defaultDataSourceName: 'dicomweb',
    dataSources: [
      {
        namespace: '@ohif/extension-default.dataSourcesModule.dicomweb',
        sourceName: 'dicomweb',
        configuration: {
          friendlyName: 'Medical Imaging',
          name: 'dicomweb',
          wadoUriRoot: DICOMWEB + '/wado',
          qidoRoot: DICOMWEB,
          wadoRoot: DICOMWEB,
          qidoSupportsIncludeField: true,
          supportsReject: false,
          supportsStow: false,
          dicomUploadEnabled: false,
          imageRendering: 'wadors',
          // Series thumbnails are drawn by the server (DICOMweb /thumbnail), not by a second
          // rendering engine in the page competing with the first image.
          thumbnailRendering: 'thumbnail',
          enableStudyLazyLoad: true,
          supportsFuzzyMatching: true,
          supportsWildcard: true,
          omitQuotationForMultipartRequest: true,
          bulkDataURI: { enabled: true },
        },
      },
    ],
  };
})();
