/** The confirm prompt the commands that change things ask before they do. */
import { createInterface } from 'node:readline/promises';

/** Asks a question on the terminal and resolves with the answer (tests bring their own). */
export type Ask = (question: string) => Promise<string>;

/** On stderr, so the question never mixes into output piped from stdout. */
export const terminalAsk: Ask = async (question) => {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return await rl.question(question);
  } finally {
    rl.close();
  }
};
