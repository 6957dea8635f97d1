/** The part of fs-native-extensions (Holepunch; N-API prebuilds in the package) that lockfile.ts uses. */
declare module 'fs-native-extensions' {
  /** Locks `length` bytes at `offset` (0 = to the end) of the open file `fd`; false if a conflicting lock is held. Exclusive unless `shared`. */
  export function tryLock(fd: number, offset: number, length: number, opts?: { shared?: boolean }): boolean;
  export function unlock(fd: number, offset?: number, length?: number): void;
}
