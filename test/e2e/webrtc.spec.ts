/**
 * A compromised page must not reach the network over WebRTC: CSP and the
 * session's request filter never see UDP, and Chromium's ICE checks carry the
 * SDP's ice-ufrag (anything the page puts there) in STUN USERNAME attributes
 * to any ICE server or candidate the page names. The harness removes WebRTC
 * from the page with the same script the preload runs and applies the same
 * UDP policy the app sets; this spec tries every way it can think of and
 * counts the datagrams that arrive at a listener on this machine.
 */
import dgram from 'node:dgram';
import { expect, test } from '@playwright/test';
import { chromium } from 'playwright-core';
import { removeWebRtc, WEBRTC_GLOBALS } from '../../electron/preload/no-webrtc';
import { chromiumExecutable, CHROMIUM_FLAGS } from './harness';
import { createVault, freshApp, type FreshApp } from './helpers';

const SECRET = 'Memory text the attacker wants 5521';

let app: FreshApp;
let listener: dgram.Socket;
const datagrams: string[] = [];

test.beforeEach(async () => {
  datagrams.length = 0;
  listener = dgram.createSocket('udp4');
  listener.on('message', (msg) => datagrams.push(msg.toString('latin1')));
  await new Promise<void>((r) => listener.bind(0, '127.0.0.1', r));
  app = await freshApp();
});

test.afterEach(async () => {
  await app.cleanup();
  await new Promise<void>((r) => listener.close(() => r()));
});

test('no WebRTC constructor is left in the page, nor in a frame the page makes', async () => {
  const found = await app.page.evaluate((names) => {
    const w = window as unknown as Record<string, unknown>;
    const nav = navigator as unknown as Record<string, unknown> & { mediaDevices?: Record<string, unknown> };
    const inPage = names.filter((n) => n in w && w[n] !== undefined);
    const media = ['getUserMedia', 'webkitGetUserMedia'].filter((n) => typeof nav[n] === 'function');
    const devices = nav.mediaDevices ? ['getUserMedia', 'getDisplayMedia'].filter((n) => typeof nav.mediaDevices![n] === 'function') : [];
    // A frame made by the page is a fresh realm; whatever window the page can reach there must be stripped too.
    const frame = document.createElement('iframe');
    let refused = '';
    try {
      document.body.appendChild(frame);
    } catch (e) {
      refused = (e as Error).name;
    }
    const indexed = (window as unknown as Record<number, Record<string, unknown> | undefined>)[0];
    const inIndexed = indexed ? names.filter((n) => n in indexed && indexed[n] !== undefined) : [];
    const child = frame.contentWindow as unknown as Record<string, unknown> | null;
    const inFrame = child ? names.filter((n) => n in child && child[n] !== undefined) : [];
    frame.remove();
    return { inPage, media, devices, inFrame: [...inIndexed, ...inFrame], refused };
  }, WEBRTC_GLOBALS);
  expect(found).toEqual({ inPage: [], media: [], devices: [], inFrame: [], refused: 'NotSupportedError' });
});

test('no datagram leaves, whatever ICE servers, candidates or saved references the page uses', async () => {
  const { page, session } = app;
  await createVault(page);
  await session.unlocked().memory.writeFile('/memories/private.md', SECRET, { mode: 'create', source: 'user' });
  const port = listener.address().port;

  const tried = await page.evaluate(async (port) => {
    const log: string[] = [];
    const read = await window.mnemo.memoryRead({ path: '/memories/private.md' });
    const secret = read.ok ? read.value.text : 'no-memory';
    // Only letters and digits fit in ice-ufrag; 4 to 256 of them.
    const ufrag = btoa(secret).replace(/[^A-Za-z0-9]/g, '').slice(0, 200);
    const w = window as unknown as Record<string, unknown>;
    const constructors: Array<[string, unknown]> = [
      ['RTCPeerConnection', w.RTCPeerConnection],
      ['webkitRTCPeerConnection', w.webkitRTCPeerConnection],
    ];
    // A constructor from a fresh frame, and one found on prototypes the page can still reach.
    try {
      const frame = document.createElement('iframe');
      document.body.append(frame);
      const indexed = (window as unknown as Record<number, Record<string, unknown> | undefined>)[0];
      if (indexed) constructors.push(['window[0].RTCPeerConnection', indexed.RTCPeerConnection]);
      const child = frame.contentWindow as unknown as Record<string, unknown> | null;
      if (child) constructors.push(['frame.RTCPeerConnection', child.RTCPeerConnection], ['frame.webkitRTCPeerConnection', child.webkitRTCPeerConnection]);
    } catch (e) {
      log.push(`frame: ${String(e)}`);
    }
    const answerSdp = (fingerprint: string) =>
      [
        'v=0',
        'o=- 1 2 IN IP4 127.0.0.1',
        's=-',
        't=0 0',
        'a=group:BUNDLE 0',
        'm=application 9 UDP/DTLS/SCTP webrtc-datachannel',
        'c=IN IP4 0.0.0.0',
        `a=ice-ufrag:${ufrag}`,
        'a=ice-pwd:abcdefghijklmnopqrstuvwx',
        `a=fingerprint:${fingerprint}`,
        'a=setup:active',
        'a=mid:0',
        'a=sctp-port:5000',
        `a=candidate:1 1 udp 2130706431 127.0.0.1 ${port} typ host`,
        '',
      ].join('\r\n');
    for (const [name, Ctor] of constructors) {
      if (typeof Ctor !== 'function') {
        log.push(`${name}: absent`);
        continue;
      }
      try {
        const pc = new (Ctor as typeof RTCPeerConnection)({ iceServers: [{ urls: [`stun:127.0.0.1:${port}`] }, { urls: [`turn:127.0.0.1:${port}?transport=udp`], username: ufrag, credential: 'x' }] });
        pc.createDataChannel(ufrag);
        const offer = await pc.createOffer();
        await pc.setLocalDescription(offer);
        const fingerprint = /a=fingerprint:(.+)/.exec(offer.sdp ?? '')?.[1]?.trim() ?? 'sha-256 00';
        await pc.setRemoteDescription({ type: 'answer', sdp: answerSdp(fingerprint) });
        await pc.addIceCandidate({ candidate: `candidate:2 1 udp 2130706431 127.0.0.1 ${port} typ host`, sdpMid: '0' }).catch(() => undefined);
        log.push(`${name}: ran`);
      } catch (e) {
        log.push(`${name}: ${String(e)}`);
      }
    }
    return log;
  }, port);

  // ICE checks start within milliseconds and repeat; a few seconds is ample for the first to arrive.
  await page.waitForTimeout(4000);
  expect(datagrams, `the page tried: ${tried.join(' | ')}`).toEqual([]);
});

test('the removal run once in the top window refuses every way the page has to put a frame in a tree, as the preload runs only there', async () => {
  // Electron runs the preload in the main frame only; Playwright's init script would also run in each frame, so here
  // the function runs once, by hand, in a page with no init script at all.
  const browser = await chromium.launch({ executablePath: chromiumExecutable(), headless: true, args: CHROMIUM_FLAGS });
  try {
    const page = await browser.newPage();
    await page.setContent('<body></body>');
    await page.evaluate(`(${removeWebRtc.toString()})(${JSON.stringify(WEBRTC_GLOBALS)})`);
    const seen = await page.evaluate(() => {
      const w = window as unknown as Record<number, Record<string, unknown> | undefined> & Record<string, unknown>;
      const kinds: Record<string, string> = { top: typeof w.RTCPeerConnection };
      // Each way to put a frame in a tree is refused; were one let through, its window must still be stripped.
      const attempt = (name: string, insert: (frame: HTMLIFrameElement) => void) => {
        const frame = document.createElement('iframe');
        try {
          insert(frame);
          kinds[name] = `inserted: ${typeof (frame.contentWindow as unknown as Record<string, unknown> | null)?.RTCPeerConnection}/${typeof w[0]?.RTCPeerConnection}`;
        } catch (e) {
          kinds[name] = (e as Error).name;
        }
      };
      attempt('appendChild', (f) => document.body.appendChild(f));
      attempt('insertBefore', (f) => document.body.insertBefore(f, null));
      attempt('append', (f) => document.body.append(f));
      attempt('inShadowRoot', (f) => {
        const host = document.createElement('div');
        document.body.append(host);
        host.attachShadow({ mode: 'open' }).append(f);
      });
      attempt('inDetachedTree', (f) => {
        const div = document.createElement('div');
        div.appendChild(f);
        document.body.append(div);
      });
      attempt('inFragment', (f) => {
        const frag = document.createDocumentFragment();
        frag.append(f);
        document.body.append(frag);
      });
      attempt('range', (f) => {
        const range = document.createRange();
        range.selectNodeContents(document.body);
        range.insertNode(f);
      });
      attempt('changedPrototype', (f) => {
        Object.setPrototypeOf(f, HTMLDivElement.prototype);
        document.body.append(f);
      });
      // An inert document (as DOMPurify parses in) may hold a frame; moving it into the shown one may not.
      attempt('fromInertDocument', (f) => {
        const inert = document.implementation.createHTMLDocument('');
        const div = inert.createElement('div');
        div.append(inert.adoptNode(f));
        document.body.append(document.adoptNode(div));
      });
      attempt('replaceWith', (f) => {
        const div = document.createElement('div');
        document.body.append(div);
        div.replaceWith(f);
      });
      return kinds;
    });
    const refused = 'NotSupportedError';
    expect(seen).toEqual({
      top: 'undefined',
      appendChild: refused,
      insertBefore: refused,
      append: refused,
      inShadowRoot: refused,
      inDetachedTree: refused,
      inFragment: refused,
      range: refused,
      changedPrototype: refused,
      fromInertDocument: refused,
      replaceWith: refused,
    });
  } finally {
    await browser.close();
  }
});

test('no page script runs in the instant between a frame being made and stripped (its load event, a custom element, a customised built-in)', async () => {
  // As above, the removal runs once by hand in a bare page, as the preload runs it in the top window only.
  const browser = await chromium.launch({ executablePath: chromiumExecutable(), headless: true, args: CHROMIUM_FLAGS });
  try {
    const page = await browser.newPage();
    await page.setContent('<body></body>');
    await page.evaluate(`(${removeWebRtc.toString()})(${JSON.stringify(WEBRTC_GLOBALS)})`);
    const grabbed = await page.evaluate(() => {
      const w = window as unknown as Record<number, Record<string, unknown> | undefined>;
      const kinds: Record<string, string> = {};
      const tryIt = (name: string, f: () => void) => {
        try {
          f();
        } catch {
          // Refused: nothing grabbed.
        }
        kinds[name] ??= 'undefined';
      };
      // An about:blank frame fires its load event inside appendChild, before the call returns.
      tryIt('loadEvent', () => {
        const f = document.createElement('iframe');
        f.addEventListener('load', () => (kinds.loadEvent = typeof w[0]?.RTCPeerConnection));
        document.body.appendChild(f);
        f.remove();
      });
      // A custom element's connectedCallback runs inside the same call, right after a frame inserted with it.
      tryIt('connectedCallback', () => {
        customElements.define(
          'x-grab',
          class extends HTMLElement {
            connectedCallback() {
              kinds.connectedCallback = typeof w[0]?.RTCPeerConnection;
            }
          },
        );
        const frag = document.createDocumentFragment();
        frag.append(document.createElement('iframe'), document.createElement('x-grab'));
        document.body.append(frag);
      });
      // A customised built-in iframe made with `new`, never through createElement.
      tryIt('customizedBuiltIn', () => {
        class Grab extends HTMLIFrameElement {}
        customElements.define('x-frame', Grab, { extends: 'iframe' });
        const f = new Grab();
        f.addEventListener('load', () => (kinds.customizedBuiltIn = typeof w[0]?.RTCPeerConnection));
        document.body.replaceChildren(f);
      });
      return kinds;
    });
    expect(grabbed).toEqual({ loadEvent: 'undefined', connectedCallback: 'undefined', customizedBuiltIn: 'undefined' });
  } finally {
    await browser.close();
  }
});
