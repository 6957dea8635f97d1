import { useCallback, useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import type { ChannelCall, ChannelStatus, ConfigTarget, ProjectConfigs } from '../../../electron/shared/channel';
import { BidiPath } from '../../components/BidiPath';
import { ErrorText } from '../../components/ErrorText';
import { call, messageOf, on } from '../../lib/api';
import { formatDate } from '../../lib/format';
import { KnownApps } from './KnownApps';

/** Each app's configuration: its name and where it goes (catalog keys; file names and keys of JSON files are passed in, never translated). */
const TARGETS = [
  { target: 'claude-desktop', title: 'otherApps.targets.claudeDesktop', where: 'otherApps.targets.claudeDesktopWhere' },
  { target: 'claude-desktop-windows', title: 'otherApps.targets.claudeDesktopWindows', where: 'otherApps.targets.claudeDesktopWindowsWhere' },
  { target: 'claude-code', title: 'otherApps.targets.claudeCode', where: 'otherApps.targets.claudeCodeWhere' },
  { target: 'claude-code-windows', title: 'otherApps.targets.claudeCodeWindows', where: 'otherApps.targets.claudeCodeWindowsWhere' },
  { target: 'cursor', title: 'otherApps.targets.cursor', where: 'otherApps.targets.cursorWhere' },
  { target: 'cursor-windows', title: 'otherApps.targets.cursorWindows', where: 'otherApps.targets.cursorWindowsWhere' },
] as const satisfies ReadonlyArray<{ target: ConfigTarget; title: string; where: string }>;
const FILES = { file: 'claude_desktop_config.json', key: 'mcpServers' };
const CURSOR_FILE = { file: '.cursor/mcp.json', globalFile: '~/.cursor/mcp.json' };

const when = (ms: number) => formatDate(ms, { dateStyle: 'short', timeStyle: 'medium' });

/**
 * Settings → "Use this memory in other apps": what other apps may do (the
 * children: the access choice, saved and consented to like the other
 * settings), the configurations to paste into Claude Desktop, Claude Code and
 * Cursor (built by main, copied by main), and the log of their last calls.
 * Refreshed whenever the section comes into view, and the log as calls come in.
 */
export function OtherAppsSettings({ children }: { children: ReactNode }) {
  const { t } = useTranslation('settings');
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
      setCopied({ target, message: r.copied ? t('otherApps.config.copied') : t('otherApps.config.noClipboard') });
    } catch (err) {
      setCopied({ target, message: messageOf(err) });
    }
  };

  return (
    <section aria-labelledby="other-apps" className="other-apps" ref={box}>
      <h2 id="other-apps">{t('otherApps.title')}</h2>
      <p>
        <Trans t={t} i18nKey="otherApps.intro" values={{ command: 'mnemo mcp' }} components={[<code translate="no" />]} />
      </p>
      {status?.problem ? (
        <p role="alert" className="error">
          {status.problem}
        </p>
      ) : (
        status && <p className="hint">{status.serving ? t('otherApps.serving') : t('otherApps.starting')}</p>
      )}
      {children}
      <KnownApps seen={seen} />
      <h3>{t('otherApps.config.title')}</h3>
      <p className="hint">
        <Trans t={t} i18nKey="otherApps.config.hint" values={{ command: 'mnemo', link: 'npm link', global: 'npm install -g' }} components={[<code translate="no" />, <code translate="no" />, <code translate="no" />]} />
      </p>
      <div className="row">
        {configs.length > 1 && (
          <label>
            {t('otherApps.config.project')}
            <select value={shown?.project ?? ''} onChange={(e) => (setProject(e.target.value), setCopied(undefined))}>
              {configs.map((c) => (
                <option key={c.project} value={c.project} dir="auto">
                  {c.projectName}
                </option>
              ))}
            </select>
          </label>
        )}
        <label className="check">
          <input type="checkbox" checked={readOnly} onChange={(e) => (setReadOnly(e.target.checked), setCopied(undefined))} />
          {t('otherApps.config.readOnly', { flag: '--read-only' })}
        </label>
      </div>
      {shown &&
        TARGETS.map(({ target, title, where }) => (
          <div key={target} className="config-block">
            <label htmlFor={`${ids}-${target}`}>{t('otherApps.config.label', { app: t(title) })}</label>
            <textarea id={`${ids}-${target}`} className="config" readOnly rows={shown.configs[target].split('\n').length} value={shown.configs[target]} spellCheck={false} translate="no" dir="ltr" />
            <p className="hint">{t(where, target.startsWith('cursor') ? CURSOR_FILE : FILES)}</p>
            <div className="row">
              <button type="button" aria-label={t('otherApps.config.copyLabel', { app: t(title) })} onClick={() => void copy(target)}>
                {t('otherApps.config.copy')}
              </button>
              {copied?.target === target && (
                <span role="status" className="saved">
                  {copied.message}
                </span>
              )}
            </div>
          </div>
        ))}
      <h3>{t('otherApps.calls.title')}</h3>
      <p className="hint">{t('otherApps.calls.hint')}</p>
      {calls.length === 0 ? (
        <p className="empty">{t('otherApps.calls.empty')}</p>
      ) : (
        <table>
          <caption className="sr-only">{t('otherApps.calls.caption', { count: calls.length })}</caption>
          <thead>
            <tr>
              <th scope="col">{t('otherApps.calls.when')}</th>
              <th scope="col">{t('otherApps.calls.app')}</th>
              <th scope="col">{t('otherApps.calls.project')}</th>
              <th scope="col">{t('otherApps.calls.command')}</th>
              <th scope="col">{t('otherApps.calls.memory')}</th>
              <th scope="col">{t('otherApps.calls.result')}</th>
            </tr>
          </thead>
          <tbody>
            {calls.map((c, i) => (
              <tr key={`${c.at}-${i}`}>
                <td>
                  <time dateTime={new Date(c.at).toISOString()}>{when(c.at)}</time>
                </td>
                <td>
                  <bdi>{c.client}</bdi>
                </td>
                <td>
                  <bdi>{c.project}</bdi>
                </td>
                <td translate="no">{c.command}</td>
                <td>
                  {c.path ? <BidiPath path={c.path} /> : '—'}
                  {c.newPath ? (
                    <>
                      {' → '}
                      <BidiPath path={c.newPath} />
                    </>
                  ) : null}
                </td>
                <td>{c.ok ? t('otherApps.calls.done') : t('otherApps.calls.error')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ErrorText message={error} />
    </section>
  );
}
