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
    document.body.appendChild(frame);
    const indexed = (window as unknown as Record<number, Record<string, unknown> | undefined>)[0];
    const inIndexed = indexed ? names.filter((n) => n in indexed && indexed[n] !== undefined) : [];
    const child = frame.contentWindow as unknown as Record<string, unknown> | null;
    const inFrame = child ? names.filter((n) => n in child && child[n] !== undefined) : [];
    frame.remove();
    return { inPage, media, devices, inFrame: [...inIndexed, ...inFrame] };
  }, WEBRTC_GLOBALS);
  expect(found).toEqual({ inPage: [], media: [], devices: [], inFrame: [] });
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

test('the removal run once in the top window reaches every frame the page makes, as the preload runs only there', async () => {
  // Electron runs the preload in the main frame only; Playwright's init script would also run in each frame, so here
  // the function runs once, by hand, in a page with no init script at all.
  const browser = await chromium.launch({ executablePath: chromiumExecutable(), headless: true, args: CHROMIUM_FLAGS });
  try {
    const page = await browser.newPage();
    await page.setContent('<body></body>');
    await page.evaluate(`(${removeWebRtc.toString()})(${JSON.stringify(WEBRTC_GLOBALS)})`);
    const seen = await page.evaluate(() => {
      const w = window as unknown as Record<number, Record<string, unknown>> & Record<string, unknown>;
      const kinds: Record<string, string> = { top: typeof w.RTCPeerConnection };
      const a = document.createElement('iframe');
      document.body.appendChild(a);
      kinds.indexed = typeof w[0]!.RTCPeerConnection;
      kinds.contentWindow = typeof (a.contentWindow as unknown as Record<string, unknown>).RTCPeerConnection;
      const host = document.createElement('div');
      document.body.append(host);
      const shadowed = document.createElement('iframe');
      host.attachShadow({ mode: 'open' }).append(shadowed);
      // A frame in a shadow tree is not in window.frames; its element is the only way in.
      kinds.inShadowRoot = typeof (shadowed.contentWindow as unknown as Record<string, unknown>).RTCPeerConnection;
      const outer = document.createElement('iframe');
      document.body.insertBefore(outer, null);
      const innerDoc = outer.contentDocument!;
      innerDoc.body.appendChild(innerDoc.createElement('iframe'));
      kinds.nested = typeof (w[1] as unknown as Record<number, Record<string, unknown>>)[0]!.RTCPeerConnection;
      const range = document.createRange();
      range.selectNodeContents(document.body);
      range.insertNode(document.createElement('iframe'));
      kinds.range = typeof w[0]!.RTCPeerConnection + '/' + typeof w[2]!.RTCPeerConnection;
      return kinds;
    });
    expect(seen).toEqual({ top: 'undefined', indexed: 'undefined', contentWindow: 'undefined', inShadowRoot: 'undefined', nested: 'undefined', range: 'undefined/undefined' });
  } finally {
    await browser.close();
  }
});
