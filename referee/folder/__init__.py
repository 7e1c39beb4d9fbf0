"""The tournament folder: its layout, its journal, its state and its key (the one owner)."""
