import type { ChatMessage } from '../llm/types.ts';

/**
 * The conversation as the model sees it. An interrupted reply is kept as far as the caller
 * heard it, so the model never believes it said what the caller never heard.
 */
export class ChatHistory {
  private readonly items: ChatMessage[] = [];
  constructor(private system: string) {}

  /** The conversation without the system prompt (what a handoff carries over). */
  turns(): ChatMessage[] {
    return [...this.items];
  }

  /** A new agent takes over: its prompt, and what it is told of the conversation so far. */
  replace(system: string, carried: ChatMessage[]): void {
    this.system = system;
    this.items.splice(0, this.items.length, ...carried);
  }

  addUser(text: string): void {
    this.items.push({ role: 'user', content: text });
  }

  addAssistant(text: string, interrupted = false): void {
    if (!text && !interrupted) return;
    this.items.push({ role: 'assistant', content: interrupted ? `${text}…` : text, ...(interrupted ? { interrupted: true } : {}) });
  }

  /** Something the model must know that nobody said (a transfer that failed): a system message in its place. */
  addNote(text: string): void {
    this.items.push({ role: 'system', content: text });
  }

  addToolRound(messages: ChatMessage[]): void {
    this.items.push(...messages);
  }

  messages(): ChatMessage[] {
    return [{ role: 'system', content: this.system }, ...this.items];
  }
}
