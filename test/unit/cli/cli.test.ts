import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAST_KDF, PASS, initVault, memoryLines, mnemo, snapshot, tempDir } from './helpers';

describe('mnemo init', () => {
  it('creates a vault without asking anything when MNEMO_PASSPHRASE is set and prints the recovery key once', async () => {
    const { vault, recoveryKey, env } = await initVault();
    expect(recoveryKey).toMatch(/^[A-Z2-7]+(-[A-Z2-7]+)+$/);
    expect(await fs.readdir(vault)).toContain('vault.json');
    const again = await mnemo(['init', '--vault', vault, ...FAST_KDF], { env });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already exists/);
    expect(again.stdout).toBe('');
  });

  it('refuses to run without a passphrase source and creates nothing', async () => {
    const root = await tempDir();
    const res = await mnemo(['init', '--vault', path.join(root, 'v'), ...FAST_KDF], { env: { HOME: root } });
    expect(res.code).toBe(3);
    expect(res.stderr).toMatch(/MNEMO_PASSPHRASE/);
    expect(await fs.readdir(root)).toEqual([]);
  });

  it('reads the passphrase from --passphrase-file, without its trailing newline', async () => {
    const root = await tempDir();
    const file = path.join(root, 'pass.txt');
    await fs.writeFile(file, `${PASS}\n`);
    const env = { HOME: root, XDG_STATE_HOME: path.join(root, 'state') };
    const vault = path.join(root, 'v');
    expect((await mnemo(['init', '--vault', vault, '--passphrase-file', file, ...FAST_KDF], { env })).code).toBe(0);
    const ls = await mnemo(['ls', '--vault', vault], { env: { ...env, MNEMO_PASSPHRASE: PASS } });
    expect(ls.code).toBe(0);
  });
});

describe('mnemo usage errors print help and change nothing', () => {
  const cases: Array<[string, string[]]> = [
    ['no command', []],
    ['an unknown command', ['frobnicate']],
    ['an unknown flag', ['ls', '--frob']],
    ['cat without a path', ['cat']],
    ['export without --plaintext', ['export', 'out']],
    ['memory with an argument', ['memory', 'x']],
    ['init with a KDF below the floor', ['init', '--kdf-ops', '1']],
  ];
  for (const [name, args] of cases) {
    it(`exits 2 on ${name}`, async () => {
      const { vault, env, root } = await initVault();
      const before = await snapshot(root);
      const res = await mnemo([...args, '--vault', vault], { env });
      expect(res.code).toBe(2);
      expect(res.stderr).toMatch(/Usage: mnemo/);
      expect(await snapshot(root)).toEqual(before);
    });
  }

  it('--help prints the help on stdout and exits 0', async () => {
    const res = await mnemo(['--help']);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/Exit codes/);
  });
});

describe('mnemo memory', () => {
  it('answers each JSON line with the tool_result Claude would get', async () => {
    const { vault, env } = await initVault();
    const res = await mnemo(['memory', '--vault', vault], {
      env,
      stdin: memoryLines(
        { command: 'create', path: '/memories/prefs.md', file_text: 'likes tea\n' },
        { command: 'view', path: '/memories/prefs.md' },
        { command: 'create', path: '/memories/prefs.md', file_text: 'again' },
        { command: 'view', path: '/memories/../etc/passwd' },
      ) + 'not json\n',
    });
    expect(res.code).toBe(0);
    const out = res.stdout.trim().split('\n').map((l) => JSON.parse(l) as { content: string; is_error: boolean });
    expect(out).toHaveLength(5);
    expect(out[0]).toEqual({ content: 'File created successfully at: /memories/prefs.md', is_error: false });
    expect(out[1]).toEqual({ content: "Here's the content of /memories/prefs.md with line numbers:\n     1\tlikes tea\n     2\t", is_error: false });
    expect(out[2]).toEqual({ content: 'Error: File /memories/prefs.md already exists', is_error: true });
    expect(out[3]!.is_error).toBe(true);
    expect(out[3]!.content).toMatch(/^Error: /);
    expect(out[4]).toEqual({ content: 'Error: the input line is not valid JSON', is_error: true });
    expect(Object.keys(out[0]!)).toEqual(['content', 'is_error']);
  });
});

describe('mnemo ls and cat', () => {
  it('cat prints the memory text exactly, and ls lists it', async () => {
    const { vault, env } = await initVault();
    const text = 'Ünïcødé ✓ — no trailing newline';
    await mnemo(['memory', '--vault', vault], { env, stdin: memoryLines({ command: 'create', path: '/memories/a/b.md', file_text: text }) });
    const cat = await mnemo(['cat', '/memories/a/b.md', '--vault', vault], { env });
    expect(cat.code).toBe(0);
    expect(cat.stdout).toBe(text);
    const ls = await mnemo(['ls', '--vault', vault], { env });
    expect(ls.stdout).toMatch(/\/memories\/a\/\n/);
    expect(ls.stdout).toMatch(new RegExp(`${Buffer.byteLength(text)}  \\S+  /memories/a/b\\.md`));
  });

  it('cat of a missing memory exits 1 and of a hostile path exits 2', async () => {
    const { vault, env } = await initVault();
    expect((await mnemo(['cat', '/memories/nope.md', '--vault', vault], { env })).code).toBe(1);
    const hostile = await mnemo(['cat', '/memories/../../etc/passwd', '--vault', vault], { env });
    expect(hostile.code).toBe(2);
    expect(hostile.stdout).toBe('');
  });

  it('a wrong passphrase exits 3 and says so', async () => {
    const { vault, env } = await initVault();
    const res = await mnemo(['ls', '--vault', vault], { env: { ...env, MNEMO_PASSPHRASE: 'wrong passphrase' } });
    expect(res.code).toBe(3);
    expect(res.stderr).toMatch(/passphrase/i);
    expect(res.stderr).not.toContain('wrong passphrase');
  });

  it('a missing vault exits 1 and tells how to create one', async () => {
    const root = await tempDir();
    const res = await mnemo(['ls', '--vault', path.join(root, 'none')], { env: { MNEMO_PASSPHRASE: PASS } });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/mnemo init/);
  });
});

describe('mnemo passwd', () => {
  it('changes the passphrase: the old one stops working, the new one and the recovery key work', async () => {
    const { vault, env } = await initVault();
    const res = await mnemo(['passwd', '--vault', vault], { env: { ...env, MNEMO_NEW_PASSPHRASE: 'a brand new passphrase' } });
    expect(res.code).toBe(0);
    expect(res.stderr).toMatch(/old passphrase/);
    expect((await mnemo(['ls', '--vault', vault], { env })).code).toBe(3);
    expect((await mnemo(['ls', '--vault', vault], { env: { ...env, MNEMO_PASSPHRASE: 'a brand new passphrase' } })).code).toBe(0);
  });
});

describe('mnemo export, import and backup', () => {
  it('export writes plaintext files only with --plaintext, and import reads them back into another vault', async () => {
    const a = await initVault();
    await mnemo(['memory', '--vault', a.vault], {
      env: a.env,
      stdin: memoryLines(
        { command: 'create', path: '/memories/one.md', file_text: 'first' },
        { command: 'create', path: '/memories/sub/two.md', file_text: 'second\n' },
      ),
    });
    const out = path.join(a.root, 'export');
    const exp = await mnemo(['export', out, '--plaintext', '--vault', a.vault], { env: a.env });
    expect(exp.code).toBe(0);
    expect(exp.stderr).toMatch(/NOT encrypted/);
    expect(await fs.readFile(path.join(out, 'sub', 'two.md'), 'utf8')).toBe('second\n');

    const b = await initVault();
    expect((await mnemo(['import', out, '--vault', b.vault], { env: b.env })).code).toBe(0);
    expect((await mnemo(['cat', '/memories/sub/two.md', '--vault', b.vault], { env: b.env })).stdout).toBe('second\n');
    // Importing the same files again skips them; a changed one conflicts and nothing is written.
    expect((await mnemo(['import', out, '--vault', b.vault], { env: b.env })).code).toBe(0);
    await fs.writeFile(path.join(out, 'one.md'), 'changed');
    const again = await mnemo(['import', out, '--vault', b.vault], { env: b.env });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already exists/);
  });

  it('import of a folder with one bad file imports nothing', async () => {
    const { root, vault, env } = await initVault();
    const src = path.join(root, 'src');
    await fs.mkdir(src);
    await fs.writeFile(path.join(src, 'good.md'), 'fine');
    await fs.writeFile(path.join(src, 'bad.bin'), Buffer.from([0xff, 0xfe, 0x00, 0xc3]));
    const res = await mnemo(['import', src, '--vault', vault], { env });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/bad\.bin: not UTF-8/);
    expect((await mnemo(['cat', '/memories/good.md', '--vault', vault], { env })).code).toBe(1);
  });

  it('backup writes an encrypted copy that opens with the same passphrase', async () => {
    const { root, vault, env } = await initVault();
    await mnemo(['memory', '--vault', vault], { env, stdin: memoryLines({ command: 'create', path: '/memories/keep.md', file_text: 'secret-marker-123' }) });
    const copy = path.join(root, 'backup');
    const res = await mnemo(['backup', copy, '--vault', vault], { env });
    expect(res.code).toBe(0);
    expect((await mnemo(['cat', '/memories/keep.md', '--vault', copy], { env })).stdout).toBe('secret-marker-123');
    for (const [, content] of await snapshot(copy)) {
      expect(Buffer.from(content, 'base64').toString('latin1')).not.toContain('secret-marker-123');
    }
    // Never into a folder that already holds something.
    expect((await mnemo(['backup', copy, '--vault', vault], { env })).code).toBe(1);
  });
});
