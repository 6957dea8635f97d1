/** The `mnemo --help` text. Kept apart so usage errors and `--help` print the same thing. */
export const USAGE = `mnemo — the Mnemo vault from the command line

Usage: mnemo <command> [options]

Commands:
  init                     Create a new vault and print its recovery key once
  memory                   Memory-tool commands as JSON lines on stdin; one
                           {"content","is_error"} JSON line out per input line
  ls [PATH]                List memories under PATH (default /memories)
  cat PATH                 Print one memory's text exactly
  verify                   Authenticate the header, manifest, journal and every blob
  passwd                   Change the passphrase (new one from MNEMO_NEW_PASSPHRASE,
                           --new-passphrase-file, or a prompt)
  export DIR --plaintext   Write every memory to DIR as plain, UNENCRYPTED files
  import DIR [--overwrite] Add the files under DIR as memories
  backup DIR               Write an encrypted copy of the vault to DIR
  chat                     Chat with Claude on this vault (--once "message",
                           --conversation ID)

Options:
  --vault DIR              The vault directory (or MNEMO_VAULT; default: the app's)
  --passphrase-file FILE   Read the passphrase from FILE (or MNEMO_PASSPHRASE,
                           or you are asked without echo). Never on the command line.
  --kdf-ops N, --kdf-mem MIB
                           init only: Argon2id cost instead of the calibrated one
                           (at least 2 and 64 MiB)
  -h, --help               Show this help

Exit codes: 0 ok, 1 operation failed, 2 usage, 3 cannot unlock, 4 vault damaged.
`;
