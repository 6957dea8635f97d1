/** An error the user can act on, announced to screen readers. */
export function ErrorText({ message }: { message: string | undefined }) {
  if (!message) return null;
  return (
    <p role="alert" className="error">
      {message}
    </p>
  );
}
