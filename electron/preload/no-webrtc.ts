/**
 * WebRTC removed from the page before any page script runs. The app never
 * uses it, and a page that could build a peer connection could send memory
 * text off the machine in ICE checks (the SDP's ice-ufrag travels in STUN
 * USERNAME over UDP), where neither the CSP nor the session's request filter
 * looks. Main also sets the window's WebRTC IP policy to
 * `disable_non_proxied_udp`; this is the second wall.
 *
 * `removeWebRtc` is self-contained (it is serialised into the page's main
 * world): the preload runs it with `contextBridge.executeInMainWorld`, and the
 * e2e harness with `page.addInitScript`, so both run exactly this code.
 */

/** Every global that creates or carries a peer connection, or captures media to send over one. */
export const WEBRTC_GLOBALS = [
  'RTCPeerConnection',
  'webkitRTCPeerConnection',
  'RTCDataChannel',
  'RTCRtpSender',
  'RTCRtpReceiver',
  'RTCRtpTransceiver',
  'RTCRtpScriptTransform',
  'RTCIceCandidate',
  'RTCSessionDescription',
  'RTCDtlsTransport',
  'RTCIceTransport',
  'RTCSctpTransport',
  'RTCCertificate',
  'RTCDTMFSender',
  'RTCEncodedAudioFrame',
  'RTCEncodedVideoFrame',
  'RTCError',
  'RTCPeerConnectionIceEvent',
  'RTCDataChannelEvent',
  'RTCTrackEvent',
  'MediaStreamTrackProcessor',
  'MediaStreamTrackGenerator',
  'ImageCapture',
] as const;

/**
 * Deletes the WebRTC globals and the media-capture entry points from `globalThis` (and
 * from every same-origin frame the page reaches through an element), then pins each as
 * undefined so no page script can put it back; refuses to put a frame in any tree, as a
 * fresh frame's realm is reachable from page script before it can be stripped. Runs in
 * the page's main world.
 */
export function removeWebRtc(names: readonly string[]): void {
  const done = new WeakSet<object>();
  const strip = (win: Record<string, unknown>): void => {
    if (done.has(win)) return;
    done.add(win);
    for (const name of names) {
      try {
        delete win[name];
        Object.defineProperty(win, name, { value: undefined, writable: false, configurable: false, enumerable: false });
      } catch {
        // Already pinned in this window.
      }
    }
    const nav = win.navigator as Record<string, unknown> | undefined;
    const navProto = nav ? (Object.getPrototypeOf(nav) as Record<string, unknown>) : undefined;
    for (const target of [nav, navProto]) {
      for (const name of ['getUserMedia', 'webkitGetUserMedia', 'mozGetUserMedia', 'mediaDevices']) {
        try {
          if (target && name in target) Object.defineProperty(target, name, { value: undefined, writable: false, configurable: false });
        } catch {
          // Already pinned.
        }
      }
    }
    const MediaDevicesCtor = win.MediaDevices as { prototype?: Record<string, unknown> } | undefined;
    for (const name of ['getUserMedia', 'getDisplayMedia', 'getAllScreensMedia']) {
      try {
        if (MediaDevicesCtor?.prototype && name in MediaDevicesCtor.prototype) Object.defineProperty(MediaDevicesCtor.prototype, name, { value: undefined, writable: false, configurable: false });
      } catch {
        // Already pinned.
      }
    }
    // A frame is a fresh realm with its own constructors. Every way to put an element in a document is wrapped so
    // that, before it returns, each child window (window[0], frame.contentWindow) is stripped the same way.
    const frames = () => {
      const n = (win.length as number | undefined) ?? 0;
      for (let i = 0; i < n; i++) {
        try {
          strip(win[i] as Record<string, unknown>);
        } catch {
          // A cross-origin frame: CSP (frame-src 'none') keeps it from loading anything.
        }
      }
    };
    // No frame may be put in any tree at all (the app uses none): an about:blank frame fires its load event, and a custom
    // element its connectedCallback, inside the inserting call, so page script would reach the frame's fresh realm
    // (window[0].RTCPeerConnection) before the stripping below runs. Checked with functions taken now, before any page
    // script could replace them, and by tag name, so neither a changed prototype nor a customised built-in hides a frame.
    const apply = Reflect.apply;
    const FRAMES = 'iframe,frame,object,embed,fencedframe,portal';
    const probes = [
      (win.Element as { prototype?: Record<string, unknown> } | undefined)?.prototype?.matches,
      (win.Element as { prototype?: Record<string, unknown> } | undefined)?.prototype?.querySelector,
      (win.DocumentFragment as { prototype?: Record<string, unknown> } | undefined)?.prototype?.querySelector,
      (win.Document as { prototype?: Record<string, unknown> } | undefined)?.prototype?.querySelector,
    ].filter((f): f is (selector: string) => unknown => typeof f === 'function');
    // Only a document shown in a window makes frames live: an inert one (DOMPurify's parse, a template) may hold them.
    const getter = (ctorName: string, prop: string) => {
      const proto = (win[ctorName] as { prototype?: object } | undefined)?.prototype;
      return proto ? Object.getOwnPropertyDescriptor(proto, prop)?.get : undefined;
    };
    const [ownerOf, startOf, viewOf] = [getter('Node', 'ownerDocument'), getter('Range', 'startContainer'), getter('Document', 'defaultView')];
    const read = (get: (() => unknown) | undefined, target: unknown): unknown => {
      try {
        return get ? apply(get, target, []) : undefined;
      } catch {
        return undefined;
      }
    };
    const inLiveDocument = (target: unknown): boolean => {
      const node = read(startOf, target) ?? target;
      const doc = read(ownerOf, node) ?? node;
      // Unknown means live: refuse rather than guess.
      return !viewOf || read(viewOf, doc) !== null;
    };
    const holdsFrame = (node: unknown): boolean =>
      probes.some((probe) => {
        try {
          const found = apply(probe, node, [FRAMES]) as unknown;
          return found === true || (typeof found === 'object' && found !== null);
        } catch {
          // Not a node this probe reads (a string, a text node, another kind of node).
          return false;
        }
      });
    const inserters: Array<[string, string[]]> = [
      ['Node', ['appendChild', 'insertBefore', 'replaceChild', 'moveBefore']],
      ['Element', ['append', 'prepend', 'before', 'after', 'replaceWith', 'replaceChildren', 'insertAdjacentElement']],
      ['Document', ['append', 'prepend', 'replaceChildren']],
      ['DocumentFragment', ['append', 'prepend', 'replaceChildren']],
      ['CharacterData', ['before', 'after', 'replaceWith']],
      ['DocumentType', ['before', 'after', 'replaceWith']],
      ['Range', ['insertNode', 'surroundContents']],
    ];
    for (const [ctorName, methods] of inserters) {
      const proto = (win[ctorName] as { prototype?: Record<string, unknown> } | undefined)?.prototype;
      if (!proto) continue;
      for (const method of methods) {
        const original = proto[method];
        if (typeof original !== 'function') continue;
        Object.defineProperty(proto, method, {
          configurable: false,
          writable: false,
          value: function (this: unknown, ...args: unknown[]) {
            if (inLiveDocument(this)) for (const arg of args) if (holdsFrame(arg)) throw new DOMException('Frames are not allowed in this window.', 'NotSupportedError');
            try {
              return apply(original as (...a: unknown[]) => unknown, this, args);
            } finally {
              frames();
            }
          },
        });
      }
    }
    for (const ctorName of ['HTMLIFrameElement', 'HTMLFrameElement', 'HTMLObjectElement', 'HTMLEmbedElement']) {
      const proto = (win[ctorName] as { prototype?: object } | undefined)?.prototype;
      if (!proto) continue;
      for (const prop of ['contentWindow', 'contentDocument']) {
        const desc = Object.getOwnPropertyDescriptor(proto, prop);
        const get = desc?.get;
        if (!get || !desc.configurable) continue;
        Object.defineProperty(proto, prop, {
          configurable: false,
          enumerable: desc.enumerable ?? false,
          get(this: unknown) {
            const value = get.call(this) as Record<string, unknown> | null;
            const child = (prop === 'contentWindow' ? value : (value as { defaultView?: unknown } | null)?.defaultView) as Record<string, unknown> | null | undefined;
            if (child) {
              try {
                strip(child);
              } catch {
                // A cross-origin frame: its own document loads no app code and CSP keeps it from loading at all.
              }
            }
            return value;
          },
        });
      }
    }
  };
  strip(globalThis as unknown as Record<string, unknown>);
}
