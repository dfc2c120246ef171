import { Kind, type FieldNode, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';

/**
 * Whether a list field's answer selects `items { data }` anywhere (through fragments too). Directives are not
 * evaluated: a `data` under @skip or @include counts as selected, which only costs reading it.
 */
export function selectsItemData(info: Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments'>): boolean {
  const items = info.fieldNodes.flatMap((node) => childFields(node.selectionSet, 'items', info.fragments));
  return items.some((item) => childFields(item.selectionSet, 'data', info.fragments).length > 0);
}

/** Whether a list field's answer selects `total` or `hasMore` (through fragments too; directives as above). */
export function selectsListCount(info: Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments'>): boolean {
  return info.fieldNodes.some(
    (node) =>
      childFields(node.selectionSet, 'total', info.fragments).length +
        childFields(node.selectionSet, 'hasMore', info.fragments).length >
      0,
  );
}

/** Whether a record field's answer (one record or a list of them) selects `data` (through fragments too). */
export function selectsRecordData(info: Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments'>): boolean {
  return info.fieldNodes.some((node) => childFields(node.selectionSet, 'data', info.fragments).length > 0);
}

function childFields(
  selectionSet: SelectionSetNode | undefined,
  name: string,
  fragments: GraphQLResolveInfo['fragments'],
  seen = new Set<string>(),
): FieldNode[] {
  if (!selectionSet) return [];
  return selectionSet.selections.flatMap((selection): FieldNode[] => {
    if (selection.kind === Kind.FIELD) return selection.name.value === name ? [selection] : [];
    if (selection.kind === Kind.INLINE_FRAGMENT) return childFields(selection.selectionSet, name, fragments, seen);
    const fragmentName = selection.name.value;
    if (seen.has(fragmentName)) return [];
    seen.add(fragmentName);
    return childFields(fragments[fragmentName]?.selectionSet, name, fragments, seen);
  });
}
