import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HighWaterMark } from '../../../electron/core/vault/hwm';
import { SimFs, type Image, type Outcome } from './sim-fs';

let root: string | undefined;
afterEach(async () => {
  if (root) await fsp.rm(root, { recursive: true, force: true });
  root = undefined;
});

const ID = 'cd'.repeat(16);
const OUTCOMES: Outcome[] = ['kept', 'lost'];

/** The alarm file in the disk a power cut left, if any. */
const alarmIn = (image: Image) => (image.get('state') as Image | undefined)?.get(`${ID}.rolled-back`);

describe('the sticky rollback alarm', () => {
  it('a rollback alarm raised just before a power cut is still raised after it, whichever unsynced folder changes survive', async () => {
    root = await fsp.mkdtemp(path.join(os.tmpdir(), 'mnemo-alarm-'));
    const stateDir = path.join(root, 'state');
    const disk = new SimFs(root);
    await new HighWaterMark(stateDir, ID, disk).setAlarm(true);
    for (const outcome of OUTCOMES) {
      const image = disk.image(outcome);
      expect(alarmIn(image), outcome).toBeDefined();
      expect(await new HighWaterMark(stateDir, ID, new SimFs(root, image)).alarm(), outcome).toBe(true);
    }
  });

  it('an alarm cleared (the rollback accepted) just before a power cut stays cleared after it', async () => {
    root = await fsp.mkdtemp(path.join(os.tmpdir(), 'mnemo-alarm-'));
    const stateDir = path.join(root, 'state');
    const disk = new SimFs(root);
    const hwm = new HighWaterMark(stateDir, ID, disk);
    await hwm.setAlarm(true);
    await hwm.setAlarm(false);
    for (const outcome of OUTCOMES) {
      expect(alarmIn(disk.image(outcome)), outcome).toBeUndefined();
      expect(await new HighWaterMark(stateDir, ID, new SimFs(root, disk.image(outcome))).alarm(), outcome).toBe(false);
    }
  });
});
