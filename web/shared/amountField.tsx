import type { RefObject } from 'preact';
import { useRef, useState } from 'preact/hooks';
import { amountExample, amountProblemText, type AmountFieldRules, parseAmount } from './amount.js';
import { currentLanguage, t } from './i18n/index.js';
import { TextField } from './ui.js';

type Rules = AmountFieldRules;

export interface AmountState {
  readonly text: string;
  setText(text: string): void;
  /** The field's error, once the form was submitted (then as it is typed). */
  readonly error: string | undefined;
  /** Marks the field checked and returns its amount, or undefined (the field then shows why, focused). */
  check(): number | undefined;
  readonly inputRef: RefObject<HTMLInputElement>;
  readonly rules: Rules;
}

/** The state of an amount field read by the reader's language (web/shared/amount.ts). */
export function useAmount(rules: Rules, initial = ''): AmountState {
  const [text, setText] = useState(initial);
  const [checked, setChecked] = useState(false);
  const inputRef = useRef<HTMLInputElement>(null) as RefObject<HTMLInputElement>;
  const reading = parseAmount(text, { ...rules, language: currentLanguage() });
  return {
    text,
    setText,
    error: checked && !reading.ok ? amountProblemText(reading.problem, rules) : undefined,
    check() {
      setChecked(true);
      if (reading.ok) return reading.value;
      inputRef.current?.focus();
      return undefined;
    },
    inputRef,
    rules,
  };
}

/**
 * A text input for an amount (not `type="number"`, which drops a Russian decimal comma in some browsers and takes
 * `1e5`): the reader types it as their language writes it, and a refusal shows under the field.
 */
export function AmountField({
  label,
  amount,
  hint,
  required,
}: {
  label: string;
  amount: AmountState;
  hint?: string;
  required?: boolean;
}) {
  return (
    <TextField
      label={label}
      value={amount.text}
      onValue={amount.setText}
      inputMode="decimal"
      autoComplete="off"
      required={required}
      inputRef={amount.inputRef}
      hint={
        hint ?? t(amount.rules.negative ? 'amount.debitHint' : 'amount.hint', { example: amountExample(amount.rules) })
      }
      error={amount.error}
    />
  );
}
