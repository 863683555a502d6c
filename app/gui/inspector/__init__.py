"""The inspector: a control's attributes, the controls list and the hierarchy tree."""
