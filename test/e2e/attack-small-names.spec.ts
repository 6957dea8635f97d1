/**
 * Attack on the rename-field drafts (kind `names`: DevicesSettings.tsx, lib/drafts.ts, shared/drafts.ts `NameDrafts`,
 * core/drafts.ts): a hostile page handing main junk drafts, the idle lock main starts, two fields open at once, Cancel
 * and Escape on a restored field, and a field opened but never typed in while another computer renames itself.
 * Set up as devices-attack.spec.ts: this computer writes, a second computer on a copy of the folder names itself
 * "Laptop", its files carried back as a sync engine would.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { Vault } from '../../electron/core/vault/vault';
import { carry } from '../unit/sync/two-computers';
import { lock, unlock, type FreshApp } from './helpers';
import { eachWithLaptop, laptopDir as laptopDirOf, openDevicesSection, openLaptop as openLaptopOf } from './laptop';

let app: FreshApp;
let otherId = '';
let myId = '';

eachWithLaptop((w) => ({ app, otherId, myId } = w), () => app);
const laptopDir = () => laptopDirOf(app);
const openLaptop = () => openLaptopOf(app);

const openSection = () => openDevicesSection(app);
const row = (section: Awaited<ReturnType<typeof openSection>>, text: string | RegExp) => section.getByRole('listitem').filter({ hasText: text });
const names = async () => Object.fromEntries((await app.session.unlocked().devices()).map((d) => [d.id, d.name]));
const heldNames = async () => ((await app.session.drafts.all(app.session.unlocked())).names ?? []).map((n) => `${n.id === otherId ? 'laptop' : n.id === myId ? 'me' : n.id} ${n.name}`).sort();
const relock = async () => {
  await lock(app.page);
  await unlock(app.page);
  await app.page.getByRole('tab', { name: 'Settings' }).click();
  return openSection();
};

test('a hostile page handing main junk name drafts gets refusals; what it may set never renames a computer, and a computer not listed gets no field', async () => {
  const { page } = app;
  // As of now (the list call reads the folder again first; so does this).
  await app.session.unlocked().ingest();
  const before = await names();
  const ghost = 'a'.repeat(32);
  const out = await page.evaluate(
    async ({ other, ghost }) => {
      const mnemo = window.mnemo as unknown as Record<string, (...a: unknown[]) => Promise<{ ok: boolean; error?: { message?: string } }>>;
      const put = (draft: unknown) => mnemo.draftsPut!({ kind: 'names', draft }).catch((e: unknown) => ({ ok: false, error: { message: `threw: ${String(e)}` } }));
      const refused: Array<[string, unknown]> = [
        ['not hex', [{ id: '../../etc/passwd', name: 'x' }]],
        ['__proto__', [{ id: '__proto__', name: 'x' }]],
        ['upper case', [{ id: other.toUpperCase(), name: 'x' }]],
        ['10,000 entries', Array.from({ length: 10_000 }, (_, i) => ({ id: i.toString(16).padStart(32, '0'), name: 'n' }))],
        ['65 entries', Array.from({ length: 65 }, (_, i) => ({ id: i.toString(16).padStart(32, '0'), name: 'n' }))],
        ['huge name', [{ id: other, name: 'x'.repeat(1001) }]],
        ['a number', [{ id: other, name: 42 }]],
        ['empty list', []],
        ['an object', { [other]: 'x' }],
        ['extra kind', undefined],
      ];
      const oks: string[] = [];
      const msgs: string[] = [];
      for (const [what, draft] of refused) {
        const r = what === 'extra kind' ? await mnemo.draftsPut!({ kind: '__proto__', draft: [] }) : await put(draft);
        if (r.ok) oks.push(what);
        else msgs.push(r.error?.message ?? '');
      }
      // Accepted: control and bidi characters in a name, and a computer the vault does not know.
      const accepted = await put([
        { id: other, name: '\u202eevil\u0000\n\t\u2066' },
        { id: ghost, name: 'Ghost' },
      ]);
      const got = (await mnemo.draftsGet!()) as unknown as { ok: boolean; value: { names?: { id: string; name: string }[] } };
      return { oks, msgs, accepted: accepted.ok, got };
    },
    { other: otherId, ghost },
  );
  expect(out.oks).toEqual([]);
  for (const msg of out.msgs) expect(msg).not.toMatch(/^threw|\/tmp\/|mnemo-e2e/);
  expect(out.accepted).toBe(true);
  expect(out.got.value.names).toEqual([
    { id: otherId, name: '\u202eevil\u0000\n\t\u2066' },
    { id: ghost, name: 'Ghost' },
  ]);
  // A draft is not a rename.
  await app.session.unlocked().ingest();
  expect(await names()).toEqual(before);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const section = await relock();
  await app.session.unlocked().ingest();
  expect(await names()).toEqual(before);
  // The known computer's field is open with the text as given; the unknown one has none, and its draft goes.
  await expect(section.getByRole('listitem')).toHaveCount(2);
  // (An input drops line breaks from its value; the rest is shown as given, in its own direction.)
  await expect(row(section, 'Laptop').getByRole('textbox', { name: 'Name' })).toHaveValue(new RegExp(`^\u202eevil${String.fromCharCode(0)}?\t\u2066$`));
  await expect(row(section, 'Laptop').getByRole('textbox', { name: 'Name' })).toHaveAttribute('dir', 'auto');
  await expect(section.getByRole('textbox', { name: 'Name' })).toHaveCount(1);
  await expect.poll(heldNames).toEqual(['laptop \u202eevil\u0000\n\t\u2066']);
  // Cancel discards it: nothing is offered after the next unlock, and nothing was renamed.
  await row(section, 'Laptop').getByRole('button', { name: 'Cancel' }).click();
  await expect.poll(heldNames).toEqual([]);
  const again = await relock();
  await expect(again.getByRole('button', { name: 'Rename Laptop' })).toBeVisible();
  await expect(page.getByRole('textbox', { name: 'Name' })).toHaveCount(0);
  expect(await names()).toEqual(before);
  expect(errors).toEqual([]);
});

test('two rename fields open survive an idle lock; Escape on one and Cancel on the other each discard only theirs', async () => {
  const { page } = app;
  const section = await openSection();
  await section.getByRole('button', { name: 'Rename Laptop' }).click();
  await row(section, 'Laptop').getByRole('textbox', { name: 'Name' }).fill('Attic ThinkPad');
  await row(section, 'This computer').getByRole('button', { name: /^Rename/ }).click();
  await row(section, 'This computer').getByRole('textbox', { name: 'Name' }).fill('Desk at home');
  // The idle lock is main's, with no warning to the window: what main already holds is what is kept.
  await expect.poll(heldNames).toEqual(['laptop Attic ThinkPad', 'me Desk at home']);
  await app.session.lock('idle');
  await expect(page.getByRole('heading', { name: 'Unlock Mnemo' })).toBeVisible();
  expect(await page.content()).not.toContain('Attic ThinkPad');
  await unlock(page);
  await page.getByRole('tab', { name: 'Settings' }).click();
  let s = await openSection();
  await expect(row(s, 'Laptop').getByRole('textbox', { name: 'Name' })).toHaveValue('Attic ThinkPad');
  await expect(row(s, 'This computer').getByRole('textbox', { name: 'Name' })).toHaveValue('Desk at home');
  await row(s, 'Laptop').getByRole('textbox', { name: 'Name' }).press('Escape');
  await expect.poll(heldNames).toEqual(['me Desk at home']);
  s = await relock();
  await expect(row(s, 'Laptop').getByRole('textbox', { name: 'Name' })).toHaveCount(0);
  await expect(row(s, 'This computer').getByRole('textbox', { name: 'Name' })).toHaveValue('Desk at home');
  await row(s, 'This computer').getByRole('button', { name: 'Cancel' }).click();
  await expect.poll(heldNames).toEqual([]);
  s = await relock();
  await expect(s.getByRole('button', { name: 'Rename Laptop' })).toBeVisible();
  await expect(page.getByRole('textbox', { name: 'Name' })).toHaveCount(0);
  // Nothing was renamed by any of it.
  expect((await names())[otherId]).toBe('Laptop');
});

test('a rename field opened but not typed in does not bring back, after a lock, the old name of a computer renamed meanwhile', async () => {
  const { page } = app;
  const section = await openSection();
  await section.getByRole('button', { name: 'Rename Laptop' }).click();
  await expect(row(section, 'Laptop').getByRole('textbox', { name: 'Name' })).toHaveValue('Laptop');
  // The user typed nothing; the field has been open for a while when the vault locks.
  await page.waitForTimeout(1000);
  await lock(page);
  // Meanwhile the laptop names itself again; its files arrive before the unlock.
  const laptop = await openLaptop();
  await laptop.renameDevice(otherId, 'Work laptop');
  await laptop.close();
  await carry(laptopDir(), app.session.dir);
  await unlock(page);
  await app.session.unlocked().ingest();
  await page.getByRole('tab', { name: 'Settings' }).click();
  const s = await openSection();
  await expect(row(s, 'Work laptop')).toHaveCount(1);
  // A field restored with "Laptop" offers, on Enter, to undo the other computer's rename with a name nobody typed.
  const fields = row(s, 'Work laptop').getByRole('textbox', { name: 'Name' });
  await page.waitForTimeout(1000);
  const values = await fields.evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value));
  expect(values.filter((v) => v === 'Laptop'), 'no field holds the old name the user never typed').toEqual([]);
});

test('a lock while a rename is being saved: the name is either saved or still in its field after the unlock, never lost', async () => {
  const { page } = app;
  const section = await openSection();
  await section.getByRole('button', { name: 'Rename Laptop' }).click();
  await row(section, 'Laptop').getByRole('textbox', { name: 'Name' }).fill('Study desktop');
  await expect.poll(heldNames).toEqual(['laptop Study desktop']);
  // The rename waits in main's queue while the user locks.
  let release!: () => void;
  const held = app.session.unlocked().exclusive(() => new Promise<void>((r) => (release = r)));
  try {
    await row(section, 'Laptop').getByRole('textbox', { name: 'Name' }).press('Enter');
    await page.getByRole('button', { name: 'Lock', exact: true }).click();
    await page.waitForTimeout(500);
  } finally {
    release();
    await held;
  }
  await expect(page.getByRole('heading', { name: 'Unlock Mnemo' })).toBeVisible({ timeout: 30_000 });
  await unlock(page);
  await app.session.unlocked().ingest();
  const saved = (await names())[otherId] === 'Study desktop';
  await page.getByRole('tab', { name: 'Settings' }).click();
  const s = await openSection();
  const field = row(s, saved ? 'Study desktop' : 'Laptop').getByRole('textbox', { name: 'Name' });
  if (saved) {
    // Saved: no rename field comes back for it (nothing left unsaved).
    await expect(s.getByRole('button', { name: 'Rename Study desktop' })).toBeVisible();
    await expect(field).toHaveCount(0);
  } else {
    await expect(field).toHaveValue('Study desktop');
  }
});

test('a rename field open for a computer that a third computer forgets before the unlock comes back with its text, in a row marked Forgotten', async () => {
  const { page } = app;
  const section = await openSection();
  await section.getByRole('button', { name: 'Rename Laptop' }).click();
  await row(section, 'Laptop').getByRole('textbox', { name: 'Name' }).fill('Old attic laptop');
  await lock(page);
  // A third computer, on a copy of the folder, forgets the laptop; its files arrive before the unlock.
  const thirdDir = path.join(app.userDataDir, 'third');
  await fs.cp(app.session.dir, thirdDir, { recursive: true });
  const third = await Vault.open(thirdDir, { stateDir: path.join(app.userDataDir, 'third-state'), format2: true, ackDelayMs: 0 });
  await third.unlockWithRecoveryKey(app.recoveryKey!);
  await third.forgetDevice(otherId);
  await third.close();
  await carry(thirdDir, app.session.dir);
  await unlock(page);
  await app.session.unlocked().ingest();
  expect((await app.session.unlocked().devices()).find((d) => d.id === otherId)?.forgotten).toBe(true);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.getByRole('tab', { name: 'Settings' }).click();
  const s = await openSection();
  await expect(row(s, 'Laptop')).toContainText('Forgotten');
  await expect(row(s, 'Laptop').getByRole('textbox', { name: 'Name' })).toHaveValue('Old attic laptop');
  // Cancel discards it; the name never changed.
  await row(s, 'Laptop').getByRole('button', { name: 'Cancel' }).click();
  await expect.poll(heldNames).toEqual([]);
  const again = await relock();
  await expect(again.getByRole('textbox', { name: 'Name' })).toHaveCount(0);
  expect((await names())[otherId]).toBe('Laptop');
  expect(errors).toEqual([]);
});
