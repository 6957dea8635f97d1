/** An error the user can act on, announced to screen readers. */
export function ErrorText({ message, id }: { message: string | undefined; id?: string }) {
  if (!message) return null;
  return (
    <p role="alert" className="error" id={id}>
      {message}
    </p>
  );
}
