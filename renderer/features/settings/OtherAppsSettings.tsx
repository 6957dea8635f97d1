import { useCallback, useEffect, useId, useRef, useState, type ReactNode } from 'react';
import type { ChannelCall, ChannelStatus, ConfigTarget, ProjectConfigs } from '../../../electron/shared/channel';
import { ErrorText } from '../../components/ErrorText';
import { call, messageOf, on } from '../../lib/api';
import { KnownApps } from './KnownApps';

const TARGETS: Array<{ target: ConfigTarget; title: string; where: string }> = [
  { target: 'claude-desktop', title: 'Claude Desktop', where: 'Add this to claude_desktop_config.json (Claude Desktop: Settings → Developer → Edit Config), next to any servers already under mcpServers, then restart Claude Desktop.' },
  { target: 'claude-desktop-windows', title: 'Claude Desktop on Windows', where: 'The same, for Windows: Claude Desktop starts the mnemo command through cmd, with the project named by its id.' },
  { target: 'claude-code', title: 'Claude Code', where: 'Run this once in a terminal.' },
  { target: 'claude-code-windows', title: 'Claude Code on Windows', where: 'The same, for Windows (PowerShell or Command Prompt): through cmd, with the project named by its id.' },
  { target: 'cursor', title: 'Cursor', where: 'Save this as .cursor/mcp.json in a project, or as ~/.cursor/mcp.json for every project.' },
  { target: 'cursor-windows', title: 'Cursor on Windows', where: 'The same, for Windows: through cmd, with the project named by its id.' },
];

const when = (ms: number) => new Date(ms).toLocaleString([], { dateStyle: 'short', timeStyle: 'medium' });

/**
 * Settings → "Use this memory in other apps": what other apps may do (the
 * children: the access choice, saved and consented to like the other
 * settings), the configurations to paste into Claude Desktop, Claude Code and
 * Cursor (built by main, copied by main), and the log of their last calls.
 * Refreshed whenever the section comes into view, and the log as calls come in.
 */
export function OtherAppsSettings({ children }: { children: ReactNode }) {
  const [status, setStatus] = useState<ChannelStatus>();
  const [configs, setConfigs] = useState<ProjectConfigs[]>([]);
  const [project, setProject] = useState<string>();
  const [readOnly, setReadOnly] = useState(false);
  const [calls, setCalls] = useState<ChannelCall[]>([]);
  const [copied, setCopied] = useState<{ target: ConfigTarget; message: string }>();
  const [error, setError] = useState<string>();
  /** Counts the times the section came into view: the apps list is asked for again each time. */
  const [seen, setSeen] = useState(0);
  const box = useRef<HTMLElement>(null);
  const ids = useId();

  const refresh = useCallback(() => {
    setError(undefined);
    call('channelStatus').then(setStatus, (e: unknown) => setError(messageOf(e)));
    call('channelLog').then(setCalls, (e: unknown) => setError(messageOf(e)));
  }, []);
  useEffect(() => {
    call('channelConfigs', { readOnly }).then(setConfigs, (e: unknown) => setError(messageOf(e)));
  }, [readOnly]);
  useEffect(() => on('channelCalls', (e) => setCalls(e.calls)), []);
  useEffect(() => {
    // Settings stay mounted while hidden: what changed meanwhile (projects, the channel starting) is asked for each
    // time the Settings panel is shown (watched on the panel, since this section may sit below the fold).
    const seen = new IntersectionObserver((entries) => {
      if (!entries.some((e) => e.isIntersecting)) return;
      refresh();
      setSeen((n) => n + 1);
      call('channelConfigs', { readOnly }).then(setConfigs, () => undefined);
    });
    const watched = box.current?.closest('[role="tabpanel"]') ?? box.current;
    if (watched) seen.observe(watched);
    return () => seen.disconnect();
  }, [refresh, readOnly]);

  const shown = configs.find((c) => c.project === project) ?? configs[0];
  const copy = async (target: ConfigTarget) => {
    if (!shown) return;
    setCopied(undefined);
    try {
      const r = await call('channelCopyConfig', { project: shown.project, target, readOnly });
      setCopied({ target, message: r.copied ? 'Copied.' : 'Copying is not available here; select the text and copy it.' });
    } catch (err) {
      setCopied({ target, message: messageOf(err) });
    }
  };

  return (
    <section aria-labelledby="other-apps" className="other-apps" ref={box}>
      <h2 id="other-apps">Use this memory in other apps</h2>
      <p>
        Claude Desktop, Claude Code, Cursor and other apps that speak MCP can use this memory through the <code>mnemo mcp</code> command. While Mnemo is unlocked they go through it: their changes show here at
        once, approval mode asks you first, and the review inbox lists them. No passphrase is ever written into their configuration.
      </p>
      {status?.problem ? (
        <p role="alert" className="error">
          {status.problem}
        </p>
      ) : (
        status && <p className="hint">{status.serving ? 'Mnemo is ready for other apps while it stays unlocked.' : 'Mnemo is starting its channel for other apps.'}</p>
      )}
      {children}
      <KnownApps seen={seen} />
      <h3>Configuration</h3>
      <p className="hint">
        These run the <code>mnemo</code> command, which must be on your PATH (install it from the Mnemo source with <code>npm link</code>, or with <code>npm install -g</code>).
      </p>
      <div className="row">
        {configs.length > 1 && (
          <label>
            Project
            <select value={shown?.project ?? ''} onChange={(e) => (setProject(e.target.value), setCopied(undefined))}>
              {configs.map((c) => (
                <option key={c.project} value={c.project}>
                  {c.projectName}
                </option>
              ))}
            </select>
          </label>
        )}
        <label className="check">
          <input type="checkbox" checked={readOnly} onChange={(e) => (setReadOnly(e.target.checked), setCopied(undefined))} />
          Read-only configuration (adds --read-only; the app’s own configuration can drop it, so set the app to view only above too)
        </label>
      </div>
      {shown &&
        TARGETS.map(({ target, title, where }) => (
          <div key={target} className="config-block">
            <label htmlFor={`${ids}-${target}`}>{title} configuration</label>
            <textarea id={`${ids}-${target}`} className="config" readOnly rows={shown.configs[target].split('\n').length} value={shown.configs[target]} spellCheck={false} />
            <p className="hint">{where}</p>
            <div className="row">
              <button type="button" aria-label={`Copy the ${title} configuration`} onClick={() => void copy(target)}>
                Copy
              </button>
              {copied?.target === target && (
                <span role="status" className="saved">
                  {copied.message}
                </span>
              )}
            </div>
          </div>
        ))}
      <h3>Recent calls from other apps</h3>
      <p className="hint">
        Only calls made through Mnemo while it is unlocked are listed here. Calls an app makes while Mnemo is locked or closed (with your passphrase in its configuration) are not logged; what they change still shows in each memory’s
        history and in the review inbox under the app’s name.
      </p>
      {calls.length === 0 ? (
        <p className="empty">No calls yet.</p>
      ) : (
        <table>
          <caption className="sr-only">The last {calls.length} calls from other apps, newest first (what was read or written is not kept)</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">App</th>
              <th scope="col">Project</th>
              <th scope="col">Command</th>
              <th scope="col">Memory</th>
              <th scope="col">Result</th>
            </tr>
          </thead>
          <tbody>
            {calls.map((c, i) => (
              <tr key={`${c.at}-${i}`}>
                <td>{when(c.at)}</td>
                <td>
                  <bdi>{c.client}</bdi>
                </td>
                <td>
                  <bdi>{c.project}</bdi>
                </td>
                <td>{c.command}</td>
                <td>
                  <bdi>{c.path ?? '—'}</bdi>
                  {c.newPath ? (
                    <>
                      {' → '}
                      <bdi>{c.newPath}</bdi>
                    </>
                  ) : null}
                </td>
                <td>{c.ok ? 'Done' : 'Error'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ErrorText message={error} />
    </section>
  );
}
