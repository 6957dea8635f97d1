/**
 * The CLI speaks the POSIX locale's language (LC_ALL > LC_MESSAGES > LANG) in its help and its messages, while
 * what scripts and Claude read stays byte for byte the same: `ls` columns, `memory`'s JSON lines (the memory
 * tool's answers are English in every locale: they are the tool's contract).
 */
import { describe, expect, it } from 'vitest';
import { initVault, memoryLines, mnemo, tempDir } from './helpers';

const LANGS = {
  en: 'en_US.UTF-8',
  'zh-CN': 'zh_CN.UTF-8',
  ja: 'ja_JP.UTF-8',
  id: 'id_ID.UTF-8',
  'pt-BR': 'pt_BR.UTF-8',
} as const;

/** `mnemo` without a command, and `mnemo ls` where there is no vault, in each shipped language. */
const EXPECTED: Record<keyof typeof LANGS, { noCommand: string; noVault: string; usage: string }> = {
  en: { noCommand: 'mnemo: No command given.', noVault: 'mnemo: there is no vault at', usage: 'Usage: mnemo <command> [options]' },
  'zh-CN': { noCommand: 'mnemo: 未指定命令。', noVault: '处没有保险库', usage: '用法：mnemo <命令> [选项]' },
  ja: { noCommand: 'mnemo: コマンドが指定されていません。', noVault: 'に保管庫がありません', usage: '使い方: mnemo <コマンド> [オプション]' },
  id: { noCommand: 'mnemo: Tidak ada perintah yang diberikan.', noVault: 'mnemo: tidak ada brankas di', usage: 'Penggunaan: mnemo <perintah> [opsi]' },
  'pt-BR': { noCommand: 'mnemo: Nenhum comando informado.', noVault: 'mnemo: não há cofre em', usage: 'Uso: mnemo <comando> [opções]' },
};

describe('the CLI in the locale’s language', () => {
  it('LANG=ja_JP.UTF-8 mnemo ls --help is in Japanese, its options lined up by display width', async () => {
    const r = await mnemo(['ls', '--help'], { env: { LANG: 'ja_JP.UTF-8' } });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^使い方: mnemo ls \[PATH\] \[オプション\]\n/);
    expect(r.stdout).toContain('オプション:');
    expect(r.stdout).toContain('  --project NAME            そのプロジェクトで作業する');
    expect(r.stdout).not.toContain('Work in that project');
  });

  it('LC_ALL wins over LANG, and C is English', async () => {
    expect((await mnemo(['--help'], { env: { LANG: 'ja_JP.UTF-8', LC_ALL: 'pt_BR.UTF-8' } })).stdout).toContain(EXPECTED['pt-BR'].usage);
    expect((await mnemo(['--help'], { env: { LANG: 'ja_JP.UTF-8', LC_ALL: 'C' } })).stdout).toContain(EXPECTED.en.usage);
  });

  for (const [lng, locale] of Object.entries(LANGS) as [keyof typeof LANGS, string][]) {
    it(`${lng}: a usage error, a missing vault and the help are said in ${lng}`, async () => {
      const none = await mnemo([], { env: { LANG: locale } });
      expect(none.code).toBe(2);
      expect(none.stderr.split('\n')[0]).toBe(EXPECTED[lng].noCommand);
      expect(none.stderr).toContain(EXPECTED[lng].usage);
      const dir = await tempDir();
      const missing = await mnemo(['ls', '--vault', `${dir}/nowhere`], { env: { LANG: locale } });
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain(EXPECTED[lng].noVault);
      expect(missing.stderr).toContain(`${dir}/nowhere`);
    });
  }

  it('ls columns and memory’s JSON lines are byte-identical under LANG=ja_JP.UTF-8, and the memory tool’s answers stay English', async () => {
    const v = await initVault();
    const lines = memoryLines(
      { command: 'create', path: '/memories/notes/a.md', file_text: 'alpha\n' },
      { command: 'view', path: '/memories/missing.md' },
      { command: 'str_replace', path: '/memories/notes/a.md', old_str: 'nothing like this', new_str: 'x' },
      { command: 'view', path: '/memories' },
    );
    const en = await mnemo(['memory', '--vault', v.vault], { env: { ...v.env, LANG: 'en_US.UTF-8' }, stdin: lines });
    const ja = await mnemo(['memory', '--vault', v.vault], { env: { ...v.env, LANG: 'ja_JP.UTF-8' }, stdin: lines.replace('a.md', 'b.md').replace('a.md', 'b.md') });
    expect(en.code).toBe(0);
    expect(ja.code).toBe(0);
    const answers = ja.stdout.trim().split('\n').map((l) => JSON.parse(l) as { content: string; is_error: boolean });
    expect(answers[1]!.is_error).toBe(true);
    expect(answers[1]!.content).toMatch(/does not exist/);
    expect(answers[2]!.is_error).toBe(true);
    expect(answers[2]!.content).toMatch(/^[\x20-\x7e\n“”’—…]*$/u);
    // Same answers as under English, but for the file's name.
    expect(ja.stdout.replaceAll('b.md', 'a.md').split('\n').slice(0, 3)).toEqual(en.stdout.split('\n').slice(0, 3));
    const lsEn = await mnemo(['ls', '--vault', v.vault], { env: { ...v.env, LANG: 'en_US.UTF-8' } });
    const lsJa = await mnemo(['ls', '--vault', v.vault], { env: { ...v.env, LANG: 'ja_JP.UTF-8' } });
    expect(lsEn.code).toBe(0);
    expect(lsJa.stdout).toBe(lsEn.stdout);
    expect(lsJa.stdout).toMatch(/^ +\d+ {2}\d{4}-\d\d-\d\dT[\d:.]+Z {2}\/memories\/notes\/a\.md$/m);
  });
});
