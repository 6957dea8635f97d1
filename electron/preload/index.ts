/**
 * The sandboxed preload: exposes `window.mnemo` with one method per call of
 * the contract and event subscription, nothing else (no generic invoke, no
 * process, no ipcRenderer).
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { buildApi } from '../shared/ipc';
import { removeWebRtc, WEBRTC_GLOBALS } from './no-webrtc';

// First, so it runs before any page script: the page gets no WebRTC at all (see no-webrtc.ts).
contextBridge.executeInMainWorld({ func: removeWebRtc, args: [[...WEBRTC_GLOBALS]] });

const api = buildApi(
  (channel, args) => ipcRenderer.invoke(channel, ...args),
  (channel, listener) => {
    const forward = (_e: IpcRendererEvent, payload: unknown) => listener(payload);
    ipcRenderer.on(channel, forward);
    return () => ipcRenderer.removeListener(channel, forward);
  },
);

contextBridge.exposeInMainWorld('mnemo', api);
