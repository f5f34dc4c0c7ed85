import { t } from '@lingui/core/macro';
import { useEffect, useRef } from 'react';
import { Dialog } from '../../components/dialog';
import { Button } from '../../components/ui/button';

/** What a console action asks before it runs: the question, what will happen, and its button. */
export interface Question {
  /** Names the action and the member: "Disable alex@example.com?" */
  title: string;
  /** What will happen, in a sentence or two. */
  description: string;
  /** The confirming button, named by the action: "Yes, Disable". */
  confirm: string;
  /** The confirming button while the request runs: "Disabling...". */
  busy: string;
  /** Whether the action takes something away (a red button), or gives back (Enable). */
  harmless?: boolean;
}

/**
 * The question an operator answers before an action on a member takes effect: a modal dialog named by the question and described by what will happen. Focus moves to Cancel,
 * the choice that changes nothing; Escape cancels; closing gives focus back to the button that
 * opened it. While the request runs the buttons wait, and Escape does nothing (the request is
 * already on its way). The owner unmounts it when the action is done or failed.
 */
export function ConfirmAction({
  question,
  running,
  onCancel,
  onConfirm,
}: {
  question: Question;
  running: boolean;
  onCancel: () => void;
  onConfirm: () => void;
}) {
  const cancel = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    cancel.current?.focus();
  }, []);
  return (
    <Dialog
      title={question.title}
      description={question.description}
      // A long email in the title wraps rather than widening the dialog past a phone's width.
      className="wrap-anywhere"
      onCancel={() => {
        if (!running) onCancel();
      }}
    >
      <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
        <Button ref={cancel} variant="secondary" disabled={running} onClick={onCancel}>
          {t`Cancel`}
        </Button>
        <Button
          variant={question.harmless ? 'primary' : 'danger'}
          className="sm:min-w-32"
          disabled={running}
          onClick={onConfirm}
        >
          {running ? question.busy : question.confirm}
        </Button>
      </div>
    </Dialog>
  );
}
