// A lint rule (issue 38): a string that may come from a user is never a key into a plain object. `table[name]` with
// `name: string` reaches Object.prototype for 'constructor', 'toString' or '__proto__' (a function or an object
// instead of undefined), and `table[name] = value` with '__proto__' replaces the object's prototype. Use a Map, or
// `ownValue` (lib/own-value.ts) to read and `Object.fromEntries` / a Map to build. Keys typed as a union of literals
// (`Record<AccessLevel, …>[level]`) and numeric keys are fine: the type system already limits them.
import ts from 'typescript';
import { ESLintUtils } from '@typescript-eslint/utils';

const createRule = ESLintUtils.RuleCreator(() => 'lib/own-value.ts');

/** A key type that can hold any string: `string`, a template literal, `any` or `unknown`, or a union with one. */
function isWideString(type) {
  if (type.isUnion()) return type.types.some(isWideString);
  return (type.flags & (ts.TypeFlags.String | ts.TypeFlags.TemplateLiteral | ts.TypeFlags.Any | ts.TypeFlags.Unknown)) !== 0;
}

/** A plain object looked up by string: one with a string index signature (or `any`), not an array or tuple. */
function isStringIndexedObject(checker, type) {
  if (type.isUnion()) return type.types.some((member) => isStringIndexedObject(checker, member));
  if ((type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) !== 0) return true;
  if (checker.isArrayType(type) || checker.isTupleType(type)) return false;
  return checker.getIndexInfoOfType(type, ts.IndexKind.String) !== undefined;
}

/** An object that `in` would search up its prototype chain: any object type but an array, or a union with one. */
function isObjectLike(checker, type) {
  if (type.isUnion()) return type.types.some((member) => isObjectLike(checker, member));
  if ((type.flags & ts.TypeFlags.Any) !== 0) return true;
  return (type.flags & ts.TypeFlags.Object) !== 0 && !checker.isArrayType(type) && !checker.isTupleType(type);
}

export const ownKeys = createRule({
  name: 'own-keys',
  meta: {
    type: 'problem',
    docs: { description: 'No user-chosen string as a key of a plain object (Object.prototype is reached)' },
    messages: {
      member: 'A string key into a plain object reaches Object.prototype (\'constructor\', \'__proto__\'): use a Map, or ownValue() to read.',
      in: '`key in object` with a string key is true for \'constructor\' and \'toString\': use Object.hasOwn or a Map.',
    },
    schema: [],
  },
  defaultOptions: [],
  create(context) {
    const services = ESLintUtils.getParserServices(context);
    const checker = services.program.getTypeChecker();
    const typeOf = (node) => services.getTypeAtLocation(node);
    return {
      MemberExpression(node) {
        if (!node.computed || node.property.type === 'Literal') return;
        if (isWideString(typeOf(node.property)) && isStringIndexedObject(checker, typeOf(node.object))) context.report({ node, messageId: 'member' });
      },
      BinaryExpression(node) {
        if (node.operator !== 'in' || node.left.type === 'PrivateIdentifier') return;
        if (isWideString(typeOf(node.left)) && isObjectLike(checker, typeOf(node.right))) context.report({ node, messageId: 'in' });
      },
    };
  },
});

export default { rules: { 'own-keys': ownKeys } };
