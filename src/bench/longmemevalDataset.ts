/**
 * The public LongMemEval JSON format (github.com/xiaowu0162/LongMemEval, `longmemeval_s.json`,
 * `longmemeval_m.json`, `longmemeval_oracle.json`): a JSON array of questions
 *
 *   {question_id, question_type, question, answer, question_date?, haystack_session_ids: [id],
 *    haystack_dates: [date], haystack_sessions: [[{role, content, has_answer?}]],
 *    answer_session_ids: [id]}
 *
 * where `haystack_sessions[i]` is the session named `haystack_session_ids[i]`. `answer` is a
 * string in most questions and a number in a few; it is read as its text. Questions whose id ends
 * in `_abs` are abstention questions (no answer in the haystack); LongMemEval's own retrieval
 * evaluation skips them, and so does this runner.
 */
import { inputError } from "../errors.ts";

export interface LongMemEvalTurn {
  role: string;
  content: string;
  hasAnswer: boolean;
}

export interface LongMemEvalQuestion {
  questionId: string;
  questionType: string;
  question: string;
  answer: string;
  questionDate: string | null;
  haystackSessionIds: string[];
  haystackDates: string[];
  haystackSessions: LongMemEvalTurn[][];
  answerSessionIds: string[];
}

/** Problems reported at most per dataset: enough to fix a generator, not a wall of text. */
const problemsShownMax = 5;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function stringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

/** One question, or the problems that make it unreadable (field paths like `[3].answer`). */
function readQuestion(raw: unknown, index: number, problems: string[]): LongMemEvalQuestion | null {
  const at = `[${index}]`;
  if (!isObject(raw)) {
    problems.push(`${at} must be an object`);
    return null;
  }
  const before = problems.length;
  for (const key of ["question_id", "question_type", "question"]) {
    if (typeof raw[key] !== "string" || raw[key] === "") problems.push(`${at}.${key} must be a non-empty string`);
  }
  if (typeof raw.answer !== "string" && typeof raw.answer !== "number") problems.push(`${at}.answer must be a string or a number`);
  if (raw.question_date !== undefined && raw.question_date !== null && typeof raw.question_date !== "string") {
    problems.push(`${at}.question_date must be a string when present`);
  }
  for (const key of ["haystack_session_ids", "haystack_dates", "answer_session_ids"]) {
    if (!stringList(raw[key])) problems.push(`${at}.${key} must be an array of strings`);
  }
  const sessions = raw.haystack_sessions;
  const turns: LongMemEvalTurn[][] = [];
  if (!Array.isArray(sessions)) {
    problems.push(`${at}.haystack_sessions must be an array of sessions (arrays of turns)`);
  } else {
    sessions.forEach((session, s) => {
      if (!Array.isArray(session)) {
        problems.push(`${at}.haystack_sessions[${s}] must be an array of turns`);
        return;
      }
      const read: LongMemEvalTurn[] = [];
      session.forEach((turn, t) => {
        if (!isObject(turn) || typeof turn.role !== "string" || typeof turn.content !== "string") {
          problems.push(`${at}.haystack_sessions[${s}][${t}] must be {role: string, content: string, has_answer?: boolean}`);
          return;
        }
        read.push({ role: turn.role, content: turn.content, hasAnswer: turn.has_answer === true });
      });
      turns.push(read);
    });
    if (stringList(raw.haystack_session_ids) && raw.haystack_session_ids.length !== sessions.length) {
      problems.push(`${at}.haystack_session_ids has ${raw.haystack_session_ids.length} ids for ${sessions.length} haystack_sessions`);
    }
  }
  if (problems.length > before) return null;
  return {
    questionId: raw.question_id as string,
    questionType: raw.question_type as string,
    question: raw.question as string,
    answer: String(raw.answer),
    questionDate: typeof raw.question_date === "string" ? raw.question_date : null,
    haystackSessionIds: raw.haystack_session_ids as string[],
    haystackDates: raw.haystack_dates as string[],
    haystackSessions: turns,
    answerSessionIds: raw.answer_session_ids as string[],
  };
}

/**
 * Reads a parsed LongMemEval file; every unreadable question is reported (the first few named),
 * as bad input on `field`.
 *
 * @example
 * readLongMemEval(JSON.parse(text), "--dataset")[0].haystackSessionIds // ["answer_1", "sharegpt_2"]
 */
export function readLongMemEval(raw: unknown, field: string): LongMemEvalQuestion[] {
  if (!Array.isArray(raw)) {
    throw inputError("invalid_dataset", `${field} must be a JSON array of LongMemEval questions, got ${raw === null ? "null" : typeof raw}`, {
      field,
      expected: "the public LongMemEval JSON format (an array of questions)",
    });
  }
  const problems: string[] = [];
  const questions: LongMemEvalQuestion[] = [];
  raw.forEach((item, index) => {
    const question = readQuestion(item, index, problems);
    if (question !== null) questions.push(question);
  });
  if (problems.length > 0) {
    const shown = problems.slice(0, problemsShownMax).join("; ");
    const more = problems.length > problemsShownMax ? ` (and ${problems.length - problemsShownMax} more)` : "";
    throw inputError("invalid_dataset", `${field} is not in the LongMemEval format: ${shown}${more}`, {
      field,
      expected: "{question_id, question_type, question, answer, haystack_session_ids, haystack_dates, haystack_sessions, answer_session_ids}",
    });
  }
  return questions;
}

/** Abstention questions (`_abs`): nothing in the haystack answers them, so retrieval is not scored. */
export function isAbstention(question: LongMemEvalQuestion): boolean {
  return question.questionId.endsWith("_abs");
}
