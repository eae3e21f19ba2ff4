"""Moving memories in and out of a store: the versioned JSON Lines export format
(:mod:`~hebbs.transfer.format`), :func:`~hebbs.transfer.export.export_lines`,
:func:`~hebbs.transfer.importer.import_file` (validate everything, then write) and the import of
a Chroma collection (:mod:`~hebbs.transfer.chroma`). See docs/integrations.md."""
