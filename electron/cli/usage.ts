/** The `mnemo --help` text. Kept apart so usage errors and `--help` print the same thing. */
export const USAGE = `mnemo — the Mnemo vault from the command line

Usage: mnemo <command> [options]

Commands:
  init                     Create a new vault and print its recovery key once
  memory                   Memory-tool commands as JSON lines on stdin; one
                           {"content","is_error"} JSON line out per input line
  mcp                      Serve the memory to MCP clients (Claude Desktop, Claude
                           Code, Cursor) on standard input and output: the
                           \`memory\` tool, the memories as resources, and a
                           prompt; --read-only: view only. Uses the running,
                           unlocked app when there is one; else the passphrase
                           from MNEMO_PASSPHRASE or --passphrase-file (never asked);
                           an MCP client starts it (mnemo mcp --help)
  ls [PATH]                List memories under PATH (default /memories)
  cat PATH                 Print one memory's text exactly
  verify                   Authenticate the header, manifest, journal and every blob
  passwd                   Change the passphrase (new one from MNEMO_NEW_PASSPHRASE,
                           --new-passphrase-file, or a prompt); with
                           --recovery-key-file, set one without the old one;
                           --kdf-ops/--kdf-mem set a new Argon2id cost
  rotate                   Re-encrypt everything under a new key; prints the new
                           recovery key once (the old one stops working)
  recovery-key             Make a new recovery key (rotates the keys so the old
                           key stops working); prints it once
  accept-rollback          Accept a vault reported as rolled back, as it is now
  export DIR --plaintext   Write every memory to DIR as plain, UNENCRYPTED files
  import DIR [--overwrite] Add the files under DIR as memories
  backup DIR               Write an encrypted copy of the vault to DIR
  chat                     Chat with Claude on this vault (--once "message",
                           --conversation ID); --temporary: a chat that is not
                           kept and cannot change memory; --attach FILE
                           (repeatable) sends an image (PNG, JPEG, GIF, WebP),
                           PDF or UTF-8 text file with the first message;
                           --conversation ID --continue carries on a reply
                           the round limit stopped
  projects                 List projects, one a line: name, then id
  projects create NAME     Make a project with its own, empty /memories
  projects rename OLD NEW  Rename a project
  projects delete NAME --yes
                           Take a project off the list; its memories and
                           conversations stay in the vault
  projects restore NAME    Bring a deleted project back
  conversations            List conversations: id, project, title, one a line
  models [--refresh]       List the API's models: id and context window (kept
                           in the vault; --refresh asks the API again)
  review                   List what Claude, "mnemo memory" or an MCP client changed
                           since it was last reviewed: path, kind (new, changed,
                           deleted) and who, one a line; --mark PATH or --all
                           marks it reviewed
  export-conversation ID [FILE]
                           Write a conversation as Markdown to FILE (a new
                           file) or standard output

Options:
  --project NAME           memory, mcp, ls, cat, export, import, chat,
                           conversations, review: work in that project
                           (default: the first)
  --read-only              mcp: only view and read; every change is refused
  --vault DIR              The vault directory (or MNEMO_VAULT; default: the app's)
  --passphrase-file FILE   Read the passphrase from FILE (or MNEMO_PASSPHRASE,
                           or you are asked without echo). Never on the command line.
  --recovery-key-file FILE Unlock with the recovery key in FILE instead (not for
                           rotate, recovery-key or backup). A key with a typo is
                           reported as such (exit 3).
  --kdf-ops N, --kdf-mem MIB
                           init and passwd: Argon2id cost (2-10 passes,
                           64-1024 MiB; init calibrates one if not given)
  --allow-weak             init and passwd: accept a passphrase the strength
                           check (the same as the app's) would refuse
  -h, --help               Show this help

Exit codes: 0 ok, 1 operation failed (also: the vault is open elsewhere), 2 usage,
3 cannot unlock (wrong passphrase or recovery key, or a typo in it), 4 vault
damaged, tampered or rolled back (run accept-rollback to keep a rolled-back vault).
`;

/** The `mnemo mcp --help` text. */
export const MCP_USAGE = `mnemo mcp — your Mnemo memory as an MCP server, for Claude Desktop, Claude Code,
Cursor and other MCP clients

An MCP client (Claude Desktop, Claude Code, Cursor…) starts it and talks to it on
standard input and output; it is not something to run by hand. It offers the
\`memory\` tool (Claude's memory tool: view, create, str_replace, insert, delete,
rename, with the same answers), your memories as resources, and a prompt with
the memory protocol.

While the Mnemo app is open and unlocked, every call goes through it (live in
the window, approval mode, review inbox), if its Settings allow other apps.
Otherwise it opens the vault itself, with the passphrase from MNEMO_PASSPHRASE
or --passphrase-file (it never asks: standard input is the client's).

Usage: mnemo mcp [--project NAME | --project-id ID] [--read-only] [--vault DIR]
                 [--passphrase-file FILE]

Options:
  --project NAME           Serve that project's /memories (default: the first
                           project); add one server per project
  --project-id ID          The same by the project's id ("mnemo projects" lists
                           it): the Windows configurations use it, since cmd.exe
                           acts on characters a name may hold (& % ^ " …)
  --read-only              Only view and read; every change is refused
  --vault DIR              The vault directory (or MNEMO_VAULT; default: the app's)
  --passphrase-file FILE   Read the passphrase from FILE when the app is not
                           unlocked (or set MNEMO_PASSPHRASE in the client's
                           configuration for this server)
  -h, --help               Show this help

Claude Desktop (claude_desktop_config.json) and Cursor (.cursor/mcp.json):
  {
    "mcpServers": {
      "mnemo": { "command": "mnemo", "args": ["mcp"] }
    }
  }

Claude Code:
  claude mcp add --scope user mnemo -- mnemo mcp

The app shows these ready to copy, for each project and with the Windows forms,
in Settings → Use this memory in other apps.
`;
